import { readFileSync } from 'node:fs';
import fg from 'fast-glob';
import ts from 'typescript';
const out: [number, string][] = [];
for (const file of fg.sync(['contract/**/*.ts', 'generator/**/*.ts', 'proxy/**/*.ts', 'deploy/**/*.ts'])) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > 80) out.push([end - start + 1, `${file}:${start + 1} ${(node as ts.FunctionDeclaration).name?.getText(source) ?? '(anonymous)'}`]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const [n, w] of out.sort((a, b) => b[0] - a[0])) console.log(n, w);
