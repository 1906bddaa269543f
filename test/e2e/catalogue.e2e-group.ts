// Every spec of test/e2e/catalogue/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './catalogue/import.e2e-spec';
import './catalogue/items-feed.e2e-spec';
import './catalogue/website-formats.e2e-spec';
import './catalogue/website-sync.e2e-spec';
import './catalogue/website-timer-restart.e2e-spec';
