// A task of ten tool calls as one program: find the tools, read one
// tool's documentation, run ten calls at once on two backends (the
// built-in math tools and the everything MCP server), keep what matters.
interface Hit { id: string; description?: string }

const found: Hit[] = await tools.search("add two numbers", 10);
const doc = await tools.describe("everything:get-sum", "schema");
const pairs: [number, number][] = [[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]];
const expressions = ["1+1", "2*3", "10/4", "2^8", "7%3"];
const [sums, evals] = await Promise.all([
  Promise.all(pairs.map(([a, b]) => tools.everything["get-sum"]({ a, b }))),
  Promise.all(expressions.map((expression) => tools.math.eval({ expression }))),
]);
console.log(`ran ${sums.length + evals.length} calls`);
const big = evals.map((r: any) => Number(r.value)).filter((v: number) => v > 5);
return {
  found: found.some((h) => h.id === "everything:get-sum"),
  documented: doc.id,
  sums: sums.map((s) => Number(String(s).match(/is (\d+)/)?.[1])),
  bigEvals: big,
};
