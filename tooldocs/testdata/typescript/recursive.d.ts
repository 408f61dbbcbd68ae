/** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
interface Tools {
  fs: {
    /** Get a recursive tree view of files and directories. */
    directory_tree(args: FsDirectoryTreeArgs): Promise<FsDirectoryTreeResult>;
  };
  json: {
    /** Store a JSON value under a key. */
    store(args: JsonStoreArgs): Promise<unknown>;
  };
  query: {
    /** Evaluate a filter expression over the catalogue. */
    run(args: QueryRunArgs): Promise<unknown>;
  };
}
declare const tools: Tools;

interface FsDirectoryTreeArgs {
  path: string;
  /**
   * @integer
   * @minimum 1
   * @maximum 10
   */
  depth?: number;
}

interface FsDirectoryTreeResult {
  root: Node;
}

/** A file or a directory. */
interface Node {
  name: string;
  type: "file" | "directory";
  children?: Node[];
}

interface JsonStoreArgs {
  key: string;
  value: Json;
}

/** Any JSON value. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

interface QueryRunArgs {
  filter: Expr;
  next?: QueryRunArgs;
  alias?: A;
}

type Expr = {
  /** @minItems 2 */
  and: Expr[];
} | {
  or: Expr[];
} | {
  not: Expr;
} | Term;

type A = unknown;

interface Term {
  field: string;
  op: "=" | "!=" | "<" | ">" | "~";
  value: string | number;
}
