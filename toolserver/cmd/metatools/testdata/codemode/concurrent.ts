// Twelve tool calls at once, over two backends: the built-in math and
// text tools and the everything MCP server, as search_tools declared
// them. Only the summary goes back to the agent.
const pairs: [number, number][] = [[1, 2], [3, 4], [5, 6], [7, 8]];
const expressions = ["6*7", "2^10", "sqrt(81)", "100/8"];
const words = ["alpha", "beta", "gamma", "delta"];
const [sums, evals, cased] = await Promise.all([
  Promise.all(pairs.map(([a, b]) => tools.everything["get-sum"]({ a, b }))),
  Promise.all(expressions.map((expression) => tools.math.eval({ expression }))),
  Promise.all(words.map((text) => tools.text.case({ text, to: "upper" }))),
]);
console.log(`ran ${sums.length + evals.length + cased.length} calls`);
return {
  sums: sums.map((s) => Number(String(s).match(/is (\d+)/)?.[1])),
  evals: evals.map((r: any) => Number(r.value)),
  upper: cased.map((r: any) => r.text).join(" "),
};
