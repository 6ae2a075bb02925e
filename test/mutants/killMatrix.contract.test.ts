/** The kill matrix's part of the contract's mutants and the release gate's (killMatrix.ts). */
import { describeKillMatrix } from './killMatrix.js';
import { contractMutants, gateMutants } from './registry.js';

describeKillMatrix('contract-and-gate', [...contractMutants, ...gateMutants]);
