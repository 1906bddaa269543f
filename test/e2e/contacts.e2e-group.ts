// Every spec of test/e2e/contacts/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './contacts/companies-fields.e2e-spec';
import './contacts/contacts.e2e-spec';
import './contacts/import.e2e-spec';
import './contacts/resolve-merge.e2e-spec';
