export * from './model';
export { pain001Xml } from './pain001';
export { pain008Xml } from './pain008';
export { creditorIdProblem, sepaText } from './rules';
