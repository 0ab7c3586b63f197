import { ProblemsError } from '../../../contract/errors.ts';

/** An import that cannot go on: every problem found. No record file is written after one. */
export class ImportError extends ProblemsError {
  constructor(problems: readonly string[]) {
    super('ERR_IMPORT', problems, 'data import failed, data/records left as it was');
  }
}
