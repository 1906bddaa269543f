// Every spec of test/e2e/analytics/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './analytics/analytics-rollup.e2e-spec';
import './analytics/analytics.e2e-spec';
import './analytics/dashboards.e2e-spec';
import './analytics/export-stream.e2e-spec';
import './analytics/reports.e2e-spec';
