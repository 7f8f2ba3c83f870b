import { readCommand } from './get.ts';

export default readCommand('composition inspect');
