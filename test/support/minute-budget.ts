/** The rate and failure budgets are per clock minute: a spec that counts against one does not start right before it turns. */
export async function awayFromMinuteTurn(): Promise<void> {
  const leftInMinute = 60_000 - (Date.now() % 60_000);
  if (leftInMinute < 8_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
}
