// Package tooldocs documents tools progressively: an agent reads a tool's
// documentation at the level of detail it can afford, and asks for more
// only when it needs it.
//
// A [Store] discloses each tool at three [DetailLevel]s:
//
//   - [LevelSummary]: ID, namespace, name, title, the first sentence of
//     the description and tags — enough to pick a tool;
//   - [LevelSchema]: adds the input and output schemas and their digests
//     ([SchemaInfo]: parameters with their types, defaults, enumerations,
//     descriptions and nested properties) — enough to call it;
//   - [LevelFull]: adds the full description, examples, notes, external
//     references, behaviour hints, version and where the documentation
//     came from.
//
// Documentation is registered as an [Entry]: a tool definition (or the ID
// of a tool a [ToolResolver] knows, such as a toolindex.Index through
// [IndexResolver]) with [Example] calls, which are validated against the
// tool's input schema, notes and [ExternalRef] links. A [Doc] renders as
// compact Markdown ([Doc.Markdown]) or as a one-line call signature
// ([Doc.Signature]); the Store estimates the tokens each level costs
// ([Store.Costs]) and picks the richest level that fits a budget
// ([Store.DescribeWithin]).
//
// A short example:
//
//	store := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
//	err := store.Register(ctx, tooldocs.Entry{
//		ToolID:   "github:create_issue",
//		Examples: []tooldocs.Example{{Name: "bug", Args: map[string]any{"owner": "o", "repo": "r", "title": "Crash"}}},
//		Source:   tooldocs.SourceManual,
//	})
//	...
//	doc, err := store.DescribeWithin(ctx, "github:create_issue", 500)
//	fmt.Print(doc.Markdown())
//
// Consumers that only read documentation (an MCP server, a code-mode
// engine) should depend on the [Describer] interface, which a Store
// implements.
//
// # TypeScript declarations
//
// For code mode, where a model writes a program that calls tools as
// `await tools.<namespace>.<name>(args)`, [TypeScript] renders declarations
// of a set of tools from their JSON Schemas: a root interface with one
// object per namespace and one method per tool, argument and result
// interfaces, JSDoc from descriptions and constraints, enums as literal
// unions, and named (possibly recursive) types for $ref targets.
// A tool that the names an engine keeps for itself on tools would hide
// ([ReservedNames]) is declared as an overload of run, called by its ID.
// [Store.TypeScript] does the same for tools the Store documents, by ID,
// so that a describe_tool can return one tool's declaration; it is the
// [Declarer] interface, which a consumer holding a Describer discovers
// with a type assertion. Declarations are not a [DetailLevel]: levels
// nest, each containing the previous one, while a declaration is another
// rendering of the schema level.
//
// # How to plug in your own
//
// Two small interfaces are extension points:
//
//   - [ToolResolver] supplies the definitions of tools the Store does not
//     keep. Implement ResolveTool (or wrap a function in
//     [ToolResolverFunc]) to document tools from any catalogue, and pass
//     it with [WithResolver]. [IndexResolver] adapts a toolindex.Index.
//   - [TokenEstimator] prices text in tokens. The default,
//     [EstimateTokens], is a tokenizer-free heuristic; implement
//     EstimateTokens (or wrap a function in [TokenEstimatorFunc]) with a
//     real tokenizer for exact budgets, and pass it with
//     [WithTokenEstimator].
//
// Package tooldocstest has conformance suites for both: run
// RunResolverConformance or RunEstimatorConformance on an implementation.
// Examples are validated by a [toolmodel.SchemaValidator]; pass your own,
// or share one validator's cache of compiled schemas, with
// [WithValidator].
package tooldocs
