export {
  type Component,
  type DecodedComponent,
  decodeComponent,
  encodeComponent,
  MAX_ESCAPED_LENGTH,
} from "./component.js";
export {
  assertScope,
  describeScope,
  parseScopeKey,
  resolveScope,
  type ScopeKind,
  scopeKeyProblem,
} from "./scope.js";
