import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ExtensionsResponse } from './dto/extensions.dto.js';
import { ExtensionRegistry } from './extension-registry.js';

@ApiTags('management: extensions')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/extensions')
export class ExtensionsController {
  constructor(private readonly registry: ExtensionRegistry) {}

  @Get()
  @ApiOperation({
    summary: 'The reward kinds and criteria operators rules may use, and the event enrichers',
    description:
      "The built-ins (source core) and those extensions loaded into this application add (source: the extension's module), with " +
      "the JSON schema of each one's arguments (a reward kind: the value of its member in an outcome_config entry) or value (an " +
      "operator: a criterion's value). The same for every organization.",
  })
  @ApiOkResponse({ type: ExtensionsResponse })
  list(): ExtensionsResponse {
    return { status: 'ok', extensions: this.registry.listing() };
  }
}
