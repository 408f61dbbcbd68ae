/** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
interface Tools {
  fs: {
    /** Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. */
    edit_file(args: FsEditFileArgs): Promise<unknown>;
    /** Returns the list of directories that this server is allowed to access. */
    list_allowed_directories(args?: {}): Promise<unknown>;
    /** Get a detailed listing of all files and directories in a specified path, including sizes. */
    list_directory_with_sizes(args: FsListDirectoryWithSizesArgs): Promise<FsListDirectoryWithSizesResult>;
    /** Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Only works within allowed directories. */
    read_text_file(args: FsReadTextFileArgs): Promise<unknown>;
  };
}
declare const tools: Tools;

interface FsEditFileArgs {
  path: string;
  edits: {
    /** Text to search for - must match exactly */
    oldText: string;
    /** Text to replace with */
    newText: string;
  }[];
  /**
   * Preview changes using git-style diff format
   * @default false
   */
  dryRun?: boolean;
}

interface FsListDirectoryWithSizesArgs {
  path: string;
  /**
   * Sort entries by name or size
   * @default "name"
   */
  sortBy?: "name" | "size";
}

interface FsListDirectoryWithSizesResult {
  entries: {
    name: string;
    kind: "file" | "directory";
    /**
     * @integer
     * @minimum 0
     */
    size?: number | null;
  }[];
  /** Counts and bytes by kind. */
  totals?: { [key: string]: number };
}

interface FsReadTextFileArgs {
  path: string;
  /** If provided, returns only the last N lines of the file */
  tail?: number;
  /** If provided, returns only the first N lines of the file */
  head?: number;
}
