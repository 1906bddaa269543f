import { DatabaseModule } from 'src/core/database/database.module';
import { CompanyEntity } from './company.entity';
import { ContactFieldEntity } from './contact-field.entity';
import { ContactIdentityEntity } from './contact-identity.entity';
import { ContactNoteEntity } from './contact-note.entity';
import { ContactEntity } from './contact.entity';
import { Module } from '@nestjs/common';
import { CompaniesController } from './companies.controller';
import { CompaniesRepository } from './companies.repository';
import { CompaniesService } from './companies.service';
import { ContactFieldsController } from './contact-fields.controller';
import { ContactFieldsRepository } from './contact-fields.repository';
import { ContactFieldsService } from './contact-fields.service';
import { ContactHydrator } from './contact-hydrator.service';
import { ContactIdentitiesRepository } from './contact-identities.repository';
import { ContactImportController } from './contact-import.controller';
import { ContactImportService } from './contact-import.service';
import { ContactMergeController } from './contact-merge.controller';
import { ContactMergeHooks } from './contact-merge-hooks.service';
import { ContactMergeService } from './contact-merge.service';
import { ContactNotesRepository } from './contact-notes.repository';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

@Module({
  imports: [
    DatabaseModule.forEntities([
      CompanyEntity,
      ContactFieldEntity,
      ContactIdentityEntity,
      ContactNoteEntity,
      ContactEntity,
    ]),
  ],
  // Order matters: the fixed paths (/contacts/companies, /fields, /import, /duplicates, /merge) before /contacts/:id.
  controllers: [
    CompaniesController,
    ContactFieldsController,
    ContactImportController,
    ContactMergeController,
    ContactsController,
  ],
  providers: [
    ContactsRepository,
    ContactIdentitiesRepository,
    ContactNotesRepository,
    CompaniesRepository,
    ContactFieldsRepository,
    ContactHydrator,
    ContactFieldsService,
    CompaniesService,
    ContactsService,
    ContactMergeHooks,
    ContactMergeService,
    ContactImportService,
  ],
  exports: [ContactsService, ContactMergeHooks],
})
export class ContactsModule {}
