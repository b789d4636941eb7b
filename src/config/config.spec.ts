import { ConfigError, loadConfig, redactUrl } from './config.js';

/** Runs loadConfig and returns the ConfigError it throws (fails the test when it throws nothing or something else). */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  describe('defaults (empty environment)', () => {
    const config = loadConfig({});

    it('points DATABASE_URL at a local PostgreSQL', () => {
      const url = new URL(config.databaseUrl);
      expect(url.protocol).toBe('postgres:');
      expect(['127.0.0.1', 'localhost']).toContain(url.hostname);
      expect(url.port === '' || url.port === '5432').toBe(true);
    });

    it('points REDIS_URL at a local Redis', () => {
      const url = new URL(config.redisUrl);
      expect(url.protocol).toBe('redis:');
      expect(['127.0.0.1', 'localhost']).toContain(url.hostname);
      expect(url.port === '' || url.port === '6379').toBe(true);
    });

    it('uses the contract defaults for the rest', () => {
      expect(config.port).toBe(3000);
      expect(config.databasePoolSize).toBe(20);
      expect(config.rateLimitPerMinute).toBe(6000);
      expect(config.bodyLimit).toBe('1mb');
      expect(config.logLevel).toBe('info');
      expect(config.webhookAllowPrivateNetworks).toBe(false);
      expect(config.storageDir).toBe('./storage');
      expect(config.adminToken).toBeNull();
      expect(typeof config.queuePrefix).toBe('string');
      expect(config.queuePrefix.length).toBeGreaterThan(0);
    });

    it('treats empty strings like absent values for optional settings', () => {
      const fromEmpty = loadConfig({
        PORT: '',
        ADMIN_TOKEN: '',
        RATE_LIMIT_PER_MINUTE: '',
        LOG_LEVEL: '',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '',
        STORAGE_DIR: '',
      });
      expect(fromEmpty.port).toBe(3000);
      expect(fromEmpty.adminToken).toBeNull();
      expect(fromEmpty.rateLimitPerMinute).toBe(6000);
      expect(fromEmpty.logLevel).toBe('info');
      expect(fromEmpty.webhookAllowPrivateNetworks).toBe(false);
      expect(fromEmpty.storageDir).toBe('./storage');
    });
  });

  describe('parses each variable', () => {
    it('DATABASE_URL with postgres: or postgresql:', () => {
      expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db.example:6543/ce' }).databaseUrl).toBe('postgres://u:p@db.example:6543/ce');
      expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/ce' }).databaseUrl).toBe('postgresql://u@db/ce');
    });

    it('REDIS_URL with redis: or rediss:', () => {
      expect(loadConfig({ REDIS_URL: 'redis://cache.example:6380/2' }).redisUrl).toBe('redis://cache.example:6380/2');
      expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.example:6380' }).redisUrl).toBe('rediss://:pw@cache.example:6380');
    });

    it('PORT as an integer, including both ends of the range', () => {
      expect(loadConfig({ PORT: '8080' }).port).toBe(8080);
      expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
      expect(loadConfig({ PORT: '0' }).port).toBe(0);
    });

    it('ADMIN_TOKEN of 16 characters or more', () => {
      expect(loadConfig({ ADMIN_TOKEN: '0123456789abcdef' }).adminToken).toBe('0123456789abcdef');
      expect(loadConfig({ ADMIN_TOKEN: 'a-much-longer-admin-token-value' }).adminToken).toBe('a-much-longer-admin-token-value');
    });

    it('QUEUE_PREFIX of letters, digits, _ . - { and }', () => {
      expect(loadConfig({ QUEUE_PREFIX: 'ce-test_1.run' }).queuePrefix).toBe('ce-test_1.run');
      expect(loadConfig({ QUEUE_PREFIX: 'x'.repeat(64) }).queuePrefix).toBe('x'.repeat(64));
      expect(loadConfig({ QUEUE_PREFIX: '{ce}' }).queuePrefix).toBe('{ce}');
    });

    it('REDIS_CLUSTER as a boolean, off by default; on, QUEUE_PREFIX defaults to the hash tag {ce}', () => {
      expect(loadConfig({}).redisCluster).toBe(false);
      expect(loadConfig({}).queuePrefix).toBe('ce');
      const cluster = loadConfig({ REDIS_CLUSTER: 'true' });
      expect(cluster.redisCluster).toBe(true);
      expect(cluster.queuePrefix).toBe('{ce}');
      expect(loadConfig({ REDIS_CLUSTER: 'true', QUEUE_PREFIX: 'prod{ce}' }).queuePrefix).toBe('prod{ce}');
    });

    it('refuses, with REDIS_CLUSTER=true, a QUEUE_PREFIX without a hash tag (its keys would spread over slots)', () => {
      for (const prefix of ['ce', '{}ce', 'ce{', '{}{ce}']) {
        const error = configError({ REDIS_CLUSTER: 'true', QUEUE_PREFIX: prefix });
        expect(error.message).toContain('QUEUE_PREFIX');
        expect(error.message).toContain('hash tag');
      }
    });

    it('REWARD_EFFECTS_RETENTION_DAYS as days from 1 (default 30), refusing 0 and words', () => {
      expect(loadConfig({}).rewardEffectsRetentionDays).toBe(30);
      expect(loadConfig({ REWARD_EFFECTS_RETENTION_DAYS: '7' }).rewardEffectsRetentionDays).toBe(7);
      expect(loadConfig({ REWARD_EFFECTS_RETENTION_DAYS: '36500' }).rewardEffectsRetentionDays).toBe(36_500);
      for (const raw of ['0', '-1', '1.5', 'month', '36501']) expect(configError({ REWARD_EFFECTS_RETENTION_DAYS: raw }).message).toContain('REWARD_EFFECTS_RETENTION_DAYS');
    });

    it('DATABASE_POOL_SIZE as a positive integer', () => {
      expect(loadConfig({ DATABASE_POOL_SIZE: '50' }).databasePoolSize).toBe(50);
    });

    it('RATE_LIMIT_PER_MINUTE as a positive integer', () => {
      expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '120' }).rateLimitPerMinute).toBe(120);
      expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '1' }).rateLimitPerMinute).toBe(1);
    });

    it('AUTH_FAILURES_PER_MINUTE as a positive integer (default 20), refusing 0 and words', () => {
      expect(loadConfig({}).authFailuresPerMinute).toBe(20);
      expect(loadConfig({ AUTH_FAILURES_PER_MINUTE: '5' }).authFailuresPerMinute).toBe(5);
      expect(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: '0' })).toThrow(ConfigError);
      expect(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: 'many' })).toThrow(ConfigError);
    });

    it("the limits of contract §18 (LIMIT_*), the contract's defaults unless set, each a positive integer up to its maximum", () => {
      expect(loadConfig({}).limits).toEqual({
        behaviorsPerCampaign: 200,
        goalsPerBehavior: 100,
        liveGoalsPerOrganization: 5000,
        uniqueGoalEventCount: 10000,
        attributeLength: 1024,
        v1Instances: 100,
        completionPoints: 2147483647,
        simulationYears: 3,
      });
      const set = loadConfig({ LIMIT_BEHAVIORS_PER_CAMPAIGN: '10', LIMIT_ATTRIBUTE_LENGTH: '64', LIMIT_SIMULATION_YEARS: '1' }).limits;
      expect(set).toEqual(expect.objectContaining({ behaviorsPerCampaign: 10, attributeLength: 64, simulationYears: 1, goalsPerBehavior: 100 }));
      expect(() => loadConfig({ LIMIT_GOALS_PER_BEHAVIOR: '0' })).toThrow(ConfigError);
      expect(() => loadConfig({ LIMIT_COMPLETION_POINTS: '2147483648' })).toThrow(/LIMIT_COMPLETION_POINTS must be an integer from 1 to 2147483647/);
      expect(() => loadConfig({ LIMIT_UNIQUE_GOAL_EVENT_COUNT: 'lots' })).toThrow(ConfigError);
    });

    it('TRUST_PROXY as a hop count from 0 (default) to 16', () => {
      expect(loadConfig({}).trustProxy).toBe(0);
      expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
      expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: '17' })).toThrow(ConfigError);
    });

    it('BODY_LIMIT in b, kb or mb, case-insensitive, normalised to lower case', () => {
      expect(loadConfig({ BODY_LIMIT: '512kb' }).bodyLimit).toBe('512kb');
      expect(loadConfig({ BODY_LIMIT: '2MB' }).bodyLimit).toBe('2mb');
      expect(loadConfig({ BODY_LIMIT: '100b' }).bodyLimit).toBe('100b');
    });

    it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const)('LOG_LEVEL %s', (level) => {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    });

    it.each([
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
    ])('WEBHOOK_ALLOW_PRIVATE_NETWORKS=%s', (raw, expected) => {
      expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: raw }).webhookAllowPrivateNetworks).toBe(expected);
    });

    it('STORAGE_DIR as given', () => {
      expect(loadConfig({ STORAGE_DIR: '/var/lib/ce/storage' }).storageDir).toBe('/var/lib/ce/storage');
    });

    it('ignores unrelated variables', () => {
      expect(loadConfig({ HOME: '/root', PATH: '/usr/bin', NODE_ENV: 'test' })).toEqual(loadConfig({}));
    });
  });

  describe('rejects invalid values with a ConfigError naming the variable', () => {
    it.each([
      ['DATABASE_URL', 'not a url'],
      ['DATABASE_URL', 'mysql://u:p@db/ce'],
      ['DATABASE_URL', 'http://db.example/ce'],
      ['REDIS_URL', '127.0.0.1:6379 nope'],
      ['REDIS_URL', 'http://cache.example:6379'],
      ['REDIS_URL', 'postgres://cache.example:6379'],
      ['PORT', '65536'],
      ['PORT', '-1'],
      ['PORT', '3000.5'],
      ['PORT', 'abc'],
      ['PORT', '80a'],
      ['ADMIN_TOKEN', 'short'],
      ['ADMIN_TOKEN', '0123456789abcde'],
      ['QUEUE_PREFIX', 'has space'],
      ['QUEUE_PREFIX', 'a:b'],
      ['QUEUE_PREFIX', 'a/b'],
      ['QUEUE_PREFIX', 'x'.repeat(65)],
      ['RATE_LIMIT_PER_MINUTE', '0'],
      ['RATE_LIMIT_PER_MINUTE', '-5'],
      ['RATE_LIMIT_PER_MINUTE', '1.5'],
      ['RATE_LIMIT_PER_MINUTE', 'many'],
      ['BODY_LIMIT', '1gb'],
      ['BODY_LIMIT', '1.5mb'],
      ['BODY_LIMIT', 'mb'],
      ['BODY_LIMIT', 'big'],
      ['BODY_LIMIT', '1 mb'],
      ['LOG_LEVEL', 'verbose'],
      ['LOG_LEVEL', 'INFO'],
      ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
      ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'TRUE'],
      ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', '2'],
      ['REDIS_CLUSTER', 'yes'],
      ['DATABASE_POOL_SIZE', '0'],
      ['DATABASE_POOL_SIZE', 'many'],
    ])('%s=%j', (name, value) => {
      const error = configError({ [name]: value });
      expect(error.message).toContain(name);
    });

    // Number('  ') is 0: a blank PORT must not silently become "any free port".
    it.each([' ', '\t'])('PORT=%j is refused or read as the default, never as port 0', (raw) => {
      let port: number;
      try {
        port = loadConfig({ PORT: raw }).port;
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).message).toContain('PORT');
        return;
      }
      expect(port).toBe(3000);
    });

    it('does not echo a database password in the error', () => {
      const error = configError({ DATABASE_URL: 'mysql://user:hunter2-secret@db/ce' });
      expect(error.message).not.toContain('hunter2-secret');
    });

    it('reports the invalid variable even when others are valid', () => {
      const error = configError({ DATABASE_URL: 'postgres://db/ce', REDIS_URL: 'redis://cache', PORT: '99999' });
      expect(error.message).toContain('PORT');
      expect(error.message).not.toContain('DATABASE_URL');
    });
  });
});

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    const redacted = redactUrl('postgres://app:s3cr3t-pass@db.example:5432/ce');
    expect(redacted).not.toContain('s3cr3t-pass');
    const url = new URL(redacted);
    expect(url.username).toBe('app');
    expect(url.password).toBe('***');
    expect(url.hostname).toBe('db.example');
    expect(url.port).toBe('5432');
    expect(url.pathname).toBe('/ce');
  });

  it('serves as many requests at once per API process as its database pool has connections, 4 of an organization’s while others are served, with 64 MiB of an organization’s waiting, unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ apiRequestsAtOnce: 20, organizationRequestsAtOnce: 4, organizationBytesWaiting: 64 * 1024 * 1024 });
    expect(loadConfig({ ORGANIZATION_REQUESTS_AT_ONCE: '8' }).organizationRequestsAtOnce).toBe(8);
    expect(configError({ ORGANIZATION_REQUESTS_AT_ONCE: '0' }).message).toContain('ORGANIZATION_REQUESTS_AT_ONCE');
    expect(loadConfig({ DATABASE_POOL_SIZE: '8' }).apiRequestsAtOnce).toBe(8);
    expect(loadConfig({ API_REQUESTS_AT_ONCE: '16', ORGANIZATION_BYTES_WAITING: '1048576' })).toMatchObject({ apiRequestsAtOnce: 16, organizationBytesWaiting: 1048576 });
    expect(configError({ API_REQUESTS_AT_ONCE: '0' }).message).toContain('API_REQUESTS_AT_ONCE');
    expect(configError({ ORGANIZATION_BYTES_WAITING: '10' }).message).toContain('ORGANIZATION_BYTES_WAITING');
    expect(loadConfig({}).shedLoadAtLoopPercent).toBe(90);
    expect(loadConfig({ SHED_LOAD_AT_LOOP_PERCENT: '0' }).shedLoadAtLoopPercent).toBe(0);
    expect(loadConfig({}).shedLoadAtSharePercent).toBe(90);
    expect(configError({ SHED_LOAD_AT_SHARE_PERCENT: '0' }).message).toContain('SHED_LOAD_AT_SHARE_PERCENT');
    expect(configError({ SHED_LOAD_AT_LOOP_PERCENT: '101' }).message).toContain('SHED_LOAD_AT_LOOP_PERCENT');
  });

  describe('WORKER_QUEUES and WORKER_NICE', () => {
    it('takes every kind of work by default, at the default niceness', () => {
      const config = loadConfig({});
      expect(config.workerQueues).toEqual(['events', 'webhooks', 'audience-jobs', 'points', 'simulations']);
      expect(config.workerNice).toBe(0);
    });

    it('takes what the list names, in any order and spacing', () => {
      expect(loadConfig({ WORKER_QUEUES: ' simulations ' }).workerQueues).toEqual(['simulations']);
      expect(loadConfig({ WORKER_QUEUES: 'points, events' }).workerQueues).toEqual(['events', 'points']);
      expect(loadConfig({ WORKER_NICE: '10' }).workerNice).toBe(10);
    });

    it('refuses an unknown name, naming the ones it knows, and a niceness out of 0 to 19', () => {
      expect(configError({ WORKER_QUEUES: 'events,simulation' }).message).toContain('events, webhooks, audience-jobs, points, simulations');
      expect(configError({ WORKER_QUEUES: ',' }).message).toContain('WORKER_QUEUES');
      expect(configError({ WORKER_NICE: '20' }).message).toContain('WORKER_NICE');
    });
  });

  describe('EXTENSIONS', () => {
    it('loads none by default, and lists files with an optional export name, in any spacing', () => {
      expect(loadConfig({}).extensions).toEqual([]);
      expect(loadConfig({ EXTENSIONS: ' ext/store.js , ext/coupons.mjs#CouponsModule ' }).extensions).toEqual(['ext/store.js', 'ext/coupons.mjs#CouponsModule']);
    });

    it('refuses an entry without a file or with an export name that is not one', () => {
      expect(configError({ EXTENSIONS: '#StoreModule' }).message).toBe('EXTENSIONS must list files, each optionally followed by #ExportName (comma-separated); got "#StoreModule"');
      expect(configError({ EXTENSIONS: 'ext/store.js#Store-Module' }).message).toContain('got "ext/store.js#Store-Module"');
    });
  });

  it('hides a Redis password given without a user name', () => {
    const redacted = redactUrl('redis://:topsecret@cache.example:6379');
    expect(redacted).not.toContain('topsecret');
    expect(new URL(redacted).hostname).toBe('cache.example');
  });

  it('leaves a URL without a password unchanged in meaning', () => {
    const redacted = redactUrl('redis://127.0.0.1:6379');
    expect(redacted).not.toContain('***');
    const url = new URL(redacted);
    expect(url.host).toBe('127.0.0.1:6379');
    expect(url.password).toBe('');
  });

  it('does not echo an unparsable value, which could hold a secret', () => {
    const redacted = redactUrl('not a url with password hunter2');
    expect(redacted).not.toContain('hunter2');
  });
});
