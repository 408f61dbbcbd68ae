/** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
interface Tools {
  "12306-mcp": {
    /** 查询12306余票信息。 */
    "get-tickets"(args: _12306McpGetTicketsArgs): Promise<unknown>;
  };
  edge: {
    /** A schema that does not decode keeps its tool callable. */
    broken(args?: {}): Promise<EdgeBrokenResult>;
    /** Definitions whose names collide with builtins and with each other. */
    names(args?: EdgeNamesArgs): Promise<unknown>;
    /** Every schema shape the renderer knows. */
    shapes(args: EdgeShapesArgs): Promise<EdgeShapesResult>;
  };
  fs: {
    /** A tool without namespace named like a namespace. */
    (args: FsArgs): Promise<unknown>;
    /** Stat a path. */
    stat(args?: FsStatArgs): Promise<unknown>;
  };
  /** Check that the server answers. */
  ping(args?: {}): Promise<unknown>;
}
declare const tools: Tools;

interface FsArgs {
  op: string;
}

interface _12306McpGetTicketsArgs {
  /**
   * 查询日期，格式为 "yyyy-MM-dd"。
   * @minLength 10
   * @maxLength 10
   */
  date: string;
  /**
   * @default ""
   * @pattern ^[GDZTKOFS]*$
   */
  trainFilterFlags?: string;
  /** @default "text" */
  format?: "text" | "csv" | "json";
}

type EdgeBrokenResult = unknown;

interface EdgeNamesArgs {
  a?: EdgeNamesPromise;
  b?: EdgeNamesPromise2;
  c?: Type;
  d?: EdgeNamesType;
  e?: EdgeNamesEdgeNamesArgs;
}

type EdgeNamesPromise = string;

/** @integer */
type EdgeNamesPromise2 = number;

interface Type {
  "名前"?: string;
}

type EdgeNamesType = boolean;

type EdgeNamesEdgeNamesArgs = null;

interface EdgeShapesArgs {
  /** @minItems 2 */
  point: [number, number, string?];
  /** @minItems 2 */
  pair?: [string, number, ...boolean[]];
  /** @minItems 1 */
  open_tuple?: [string, ...unknown[]];
  empty?: [];
  matrix?: (number | null)[][];
  choice?: ("a" | 1 | true | null | { k: [1, "x"] } | [] | { [key: string]: never })[];
  never?: never;
  anything?: unknown;
  nothing_known?: unknown;
  conditional?: unknown;
  external?: unknown;
  anchor?: unknown;
  headers?: { [key: string]: string };
  labels?: {
    team?: string;
  } & { [key: string]: number };
  closed?: { [key: string]: never };
  strict_empty?: never;
  "with-dash"?: string;
  /** A reserved word is a valid property name. */
  default?: string;
  $dollar?: string;
  /** An empty property name. */
  ""?: string;
  /**
   * @integer
   * @exclusiveMaximum 1e+21
   * @multipleOf 2
   */
  integer_or_string?: number | string;
  /**
   * @integer
   * @exclusiveMinimum 0
   */
  draft4?: number;
  mixed?: {
    a?: string;
  } & {
    /** @integer */
    b?: number;
  };
  /**
   * @minProperties 1
   * @maxProperties 3
   */
  big?: { [key: string]: unknown };
  missing: unknown;
}

type EdgeShapesResult = {
  ok?: boolean;
} | string[];

interface FsStatArgs {
  path?: string;
}
