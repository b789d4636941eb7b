import { Module } from '@nestjs/common';
import { CustomersStateModule } from '../customers-state/index.js';
import { EvaluationModule } from '../evaluation/index.js';
import { EventsModule } from '../events/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { CustomerExportRepository } from './customer-export.repository.js';
import { CustomerExportUseCase } from './customer-export.js';
import { DataRightsController } from './data-rights.controller.js';
import { EraseCustomerUseCase } from './erase-customer.use-case.js';
import { ErasureRepository } from './erasure.repository.js';

/** Customer data rights (contract §21, docs/data-rights.md): the export and the erasure's answer. The worker finishes erasures. */
@Module({
  imports: [TenancyModule, EvaluationModule, CustomersStateModule, EventsModule],
  controllers: [DataRightsController],
  providers: [CustomerExportUseCase, CustomerExportRepository, EraseCustomerUseCase, ErasureRepository],
})
export class DataRightsModule {}
