/**
 * The service's version (semver), as /meta and /metrics report it. The same as package.json's
 * `version` (test/unit/version.test.ts holds them together); CHANGELOG.md says what each one changed.
 */
export const serviceVersion = '1.1.0';
