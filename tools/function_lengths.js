// Prints "LINES FILE:LINE NAME" for every function, method, accessor and arrow function body
// of the TypeScript files given, using the compiler's own parser (extension/node_modules).
// Used by tools/check_function_length.py.
'use strict';
const path = require('path');
const fs = require('fs');
const ts = require(path.join(__dirname, '..', 'extension', 'node_modules', 'typescript'));

function nameOf(node) {
  if (node.name && node.name.getText) return node.name.getText();
  if (node.parent && ts.isVariableDeclaration(node.parent)) return node.parent.name.getText();
  if (node.parent && ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '<anonymous>';
}

for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      console.log(`${end - start + 1} ${file}:${start} ${nameOf(node)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
}
