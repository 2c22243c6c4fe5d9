import ts from "typescript";

/** A binding at a bundle's top level (a module's own, after the bundler joined them) that is written. */
export interface ModuleWrite {
  /** Its name without the suffix the bundler adds to tell two modules' equal names apart. */
  name: string;
  /** Its name in the bundle (`live$1`). */
  bundled: string;
  /** How it is written: `assigned`, `property written`, `.add()` and the like. */
  writes: string[];
  /** Whether a `perEvent(...)` callback of the bundle names it (its state is forgotten per event). */
  resetPerEvent: boolean;
}

/** Methods that change the collection or array they are called on. */
const MUTATORS = new Set([
  "add",
  "set",
  "delete",
  "clear",
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
]);

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/**
 * Whether `node` is what an assignment (a destructuring one's too), `++`/`--`, `delete` or a
 * `for (x of/in ...)` writes.
 */
function isWritten(node: ts.Node): boolean {
  let target = node;
  // Up through a destructuring pattern: `[a, b] = ...`, `({ a, b: c, ...d } = ...)`.
  while (
    ts.isArrayLiteralExpression(target.parent) ||
    ts.isSpreadElement(target.parent) ||
    ts.isSpreadAssignment(target.parent) ||
    ts.isShorthandPropertyAssignment(target.parent) ||
    (ts.isPropertyAssignment(target.parent) && target.parent.initializer === target) ||
    (ts.isObjectLiteralExpression(target.parent) && target !== node)
  ) {
    target = target.parent;
  }
  const parent = target.parent;
  if (
    (ts.isForOfStatement(parent) || ts.isForInStatement(parent)) &&
    parent.initializer === target
  ) {
    return true;
  }
  if (target !== node) {
    return (
      ts.isBinaryExpression(parent) &&
      parent.left === target &&
      parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
    );
  }
  if (ts.isBinaryExpression(parent))
    return parent.left === node && isAssignment(parent.operatorToken.kind);
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) {
    return (
      parent.operator === ts.SyntaxKind.PlusPlusToken ||
      parent.operator === ts.SyntaxKind.MinusMinusToken
    );
  }
  return ts.isDeleteExpression(parent);
}

/**
 * Every top-level binding of the CommonJS bundle `text` that some code writes: assigned, a
 * property or element of it written or deleted, or a mutating method called on it. Names are
 * resolved as JavaScript scopes them (a local of the same name is not the module's). What is
 * not seen: a write through another name (an alias, an argument) and state a closure keeps.
 */
export function moduleWrites(text: string): ModuleWrite[] {
  const fileName = "/bundle.js";
  const options: ts.CompilerOptions = { allowJs: true, noLib: true, noResolve: true, types: [] };
  const host = ts.createCompilerHost(options);
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  host.getSourceFile = (name) => (name === fileName ? source : undefined);
  host.fileExists = (name) => name === fileName;
  host.readFile = (name) => (name === fileName ? text : undefined);
  const program = ts.createProgram([fileName], options, host);
  const checker = program.getTypeChecker();

  // The top-level declarations: each module's own, joined into one scope by the bundler.
  const top = new Map<ts.Symbol, string>();
  for (const statement of source.statements) {
    const names: ts.Identifier[] = [];
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) names.push(d.name);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      names.push(statement.name);
    }
    for (const name of names) {
      const symbol = checker.getSymbolAtLocation(name);
      if (symbol !== undefined) top.set(symbol, name.text);
    }
  }

  const writes = new Map<ts.Symbol, Set<string>>();
  const reset = new Set<ts.Symbol>();
  const perEvent = [...top].find(([, name]) => name === "perEvent")?.[0];
  const visit = (node: ts.Node, inReset: boolean): void => {
    let inside = inReset;
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      inside ||=
        perEvent !== undefined && checker.getSymbolAtLocation(node.expression) === perEvent;
    }
    if (ts.isIdentifier(node)) {
      // `{ name }` names the property; the binding it reads or writes is the value's symbol.
      const symbol = ts.isShorthandPropertyAssignment(node.parent)
        ? checker.getShorthandAssignmentValueSymbol(node.parent)
        : checker.getSymbolAtLocation(node);
      if (symbol !== undefined && top.has(symbol)) {
        if (inReset) reset.add(symbol);
        const how = writeOf(node);
        if (how !== null) {
          const seen = writes.get(symbol) ?? new Set<string>();
          seen.add(how);
          writes.set(symbol, seen);
        }
      }
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, false);

  return [...writes].map(([symbol, how]) => {
    const bundled = top.get(symbol) as string;
    return {
      name: bundled.replace(/\$\d+$/, ""),
      bundled,
      writes: [...how].sort(),
      resetPerEvent: reset.has(symbol),
    };
  });
}

/** How the reference `node` writes the binding it names, or null when it only reads it. */
function writeOf(node: ts.Identifier): string | null {
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent)) &&
    parent.name === node
  ) {
    return null;
  }
  if (isWritten(node)) return "assigned";
  if (
    (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) &&
    parent.expression === node
  ) {
    if (isWritten(parent)) return "property written";
    if (
      ts.isPropertyAccessExpression(parent) &&
      MUTATORS.has(parent.name.text) &&
      ts.isCallExpression(parent.parent) &&
      parent.parent.expression === parent
    ) {
      return `.${parent.name.text}()`;
    }
  }
  return null;
}
