import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import type { AppConfig } from '../config/config.js';
import { LOGGER, Logger } from '../common/logging/logger.js';
import { completeDocument } from '../common/http/openapi-document.js';
import { mountQueueDashboard } from './queue-dashboard.js';
import { QueueName } from '../queues/queue-names.js';
import { requestContext } from '../common/http/request-id.middleware.js';
import { LoadShedding } from '../common/auth/load-shedding.js';
import { turnScope } from '../common/auth/current-turn.js';
import { MetricsService } from '../modules/metrics/index.js';
import { ExtensionListing } from '../modules/extensions/index.js';
import { CRITERION_FORMS } from '../common/validation/criterion.dto.js';

/**
 * The document's description, rendered as Markdown by Swagger UI: a placeholder such as <token> is written in a code
 * span, where it shows as written (elsewhere the page takes it for an HTML tag and drops it). The queues are the
 * dashboard's own list.
 */
const DESCRIPTION =
  'Customer events evaluated in real time against live loyalty campaigns. Every /priv route takes the api key in ' +
  'the path and HTTP Basic credentials api_key:api_secret. Errors share one envelope: ' +
  '`{"status":"error","errors":{"code","message","details"}}`; each error response shows an example of every code it lists.\n\n' +
  `Queue dashboard: [/admin/queues](/admin/queues) (a web page, not part of this API): the ${queueList()} queues, their ` +
  'jobs by state, retry and clean. Log in with ADMIN_TOKEN: the browser asks for a user and password: any user name ' +
  '(admin, say) and the token as the password (or send `Authorization: Bearer <token>`).';

/** "events, webhooks, audience-jobs, simulations and reward-effects": the queues the dashboard shows. */
function queueList(): string {
  const names = Object.values(QueueName);
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Everything main.ts and the e2e tests must set up the same way on the HTTP application. */
export function configureApp(app: NestExpressApplication, config: AppConfig): OpenAPIObject {
  const logger = app.get<Logger>(LOGGER);
  const metrics = app.get(MetricsService);
  // Security headers on every answer, errors included (contract §18). Helmet's defaults, whose Content-Security-Policy
  // already lets Swagger UI (/docs) and the queue dashboard load what they load: scripts of our own, inline styles,
  // data: images, Google Fonts' stylesheet and fonts. Less upgrade-insecure-requests: the API may be served over plain
  // HTTP (locally, or inside a private network), where browsers that honour it there (Safari) would fetch /docs's own
  // scripts over HTTPS and fail; the pages name no http: resource it could upgrade anyway.
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  app.use(requestContext(logger, (method, route, status, seconds) => metrics.observe(method, route, status, seconds)));
  app.use(app.get(LoadShedding).middleware()); // before the body parser: a shed request's body is never parsed
  app.useBodyParser('json', { limit: config.bodyLimit });
  app.use(turnScope()); // after the body parser, whose stream callbacks would lose the scope
  mountQueueDashboard(app, config);
  app.disable('x-powered-by');
  app.set('etag', false); // API answers change with every event; hashing each body costs CPU for no cache hit
  app.set('query parser', 'extended');
  // The source address of the failed-authentication budget: behind n proxies, the client as the n-th proxy saw it.
  if (config.trustProxy > 0) app.set('trust proxy', config.trustProxy);
  app.enableShutdownHooks(undefined, { useProcessExit: true });

  const extensions = app.get(ExtensionListing);
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Campaign engine')
      .setDescription(DESCRIPTION)
      .setVersion('1')
      .addBasicAuth({ type: 'http', scheme: 'basic', description: 'username = api_key, password = api_secret' }, 'api_key')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque token', description: 'ADMIN_TOKEN' }, 'admin')
      .build(),
    // Operation ids name the generated clients' methods: CustomersController.create is Customers_create. The criterion
    // forms are models no class refers to: publish makes Criterion their union.
    { operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`, extraModels: [...CRITERION_FORMS, ...extensions.models()] },
  );
  // The extensions first: the examples of perform's not_available name the domain actions they add.
  completeDocument(extensions.publish(document));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return document;
}
