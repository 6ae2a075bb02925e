/** The kill matrix's part of the methods', orchestration's and queries' mutants (killMatrix.ts). */
import { describeKillMatrix } from './killMatrix.js';
import { queryMutants, verbMutants } from './registry.js';

describeKillMatrix('verbs-and-queries', [...verbMutants, ...queryMutants]);
