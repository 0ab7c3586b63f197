/** An import that cannot go on: every problem found. No record file is written after one. */
export class ImportError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`data import failed, data/records left as it was:\n- ${problems.join('\n- ')}`);
    this.name = 'ImportError';
  }
}
