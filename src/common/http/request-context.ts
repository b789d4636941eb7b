/** What a request carries once the api-key guard has let it in. */
export interface Tenant {
  organizationId: number;
  applicationId: number;
  apiKeyId: number;
  apiKey: string;
  multiOrgEnabled: boolean;
  timeZone: string;
  rootDivisionId: number;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      tenant?: Tenant;
    }
  }
}
