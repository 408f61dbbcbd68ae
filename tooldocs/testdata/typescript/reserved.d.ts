/** The tools a program calls, as `await tools.<namespace>.<name>(args)`, or `await tools.run(id, args)` for those declared with their ID. */
interface Tools {
  class: {
    /** Reserved words of JavaScript are valid property names. */
    delete(args?: {}): Promise<unknown>;
  };
  /** A tool without namespace whose namespace holds only a then. */
  fs(args?: {}): Promise<unknown>;
  util: {
    /** A tool reached as usual beside one named then. */
    echo(args?: {}): Promise<unknown>;
  };
  /** A tool without namespace named like the engine's ns. */
  run(id: "ns", args?: {}): Promise<unknown>;
  /** A tool without namespace named like the engine's search. */
  run(id: "search", args: SearchArgs): Promise<SearchResult>;
  /** A tool without namespace named then. */
  run(id: "then", args?: {}): Promise<unknown>;
  /** A tool named then in a namespace that is not an identifier. */
  run(id: "12306-mcp:then", args?: {}): Promise<unknown>;
  /** The only tool of its namespace, named then. */
  run(id: "fs:then", args?: {}): Promise<unknown>;
  /** A tool in the namespace ns. */
  run(id: "ns:inner", args?: NsInnerArgs): Promise<unknown>;
  /** A namespace named like the engine's run: reached by ID. */
  run(id: "run:echo", args: RunEchoArgs): Promise<unknown>;
  /** A tool in the namespace then. */
  run(id: "then:x", args?: {}): Promise<unknown>;
  /** A tool named then in a namespace. */
  run(id: "util:then", args?: {}): Promise<unknown>;
}
declare const tools: Tools;

interface SearchArgs {
  q: string;
}

interface SearchResult {
  /** @integer */
  hits?: number;
}

interface NsInnerArgs {
  /** @integer */
  n?: number;
}

interface RunEchoArgs {
  msg: string;
}
