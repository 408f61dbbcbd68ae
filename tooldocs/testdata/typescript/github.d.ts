/** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
interface Tools {
  github: {
    /**
     * Create a new issue in a GitHub repository. The caller needs push access to the repository.
     *
     * The issue is opened immediately and subscribers are notified.
     */
    create_issue(args: GithubCreateIssueArgs): Promise<GithubCreateIssueResult>;
    /** Get details of the authenticated GitHub user. */
    get_me(args?: {}): Promise<unknown>;
    /** Merge a pull request. */
    "merge-pull-request"(args: GithubMergePullRequestArgs): Promise<unknown>;
    /** Search issues and pull requests across GitHub with the issue search syntax. */
    search_issues(args: GithubSearchIssuesArgs): Promise<GithubSearchIssuesResult>;
  };
}
declare const tools: Tools;

interface GithubCreateIssueArgs {
  /** The account owner of the repository. The name is not case sensitive. */
  owner: string;
  /** The name of the repository without the .git extension. */
  repo: string;
  /**
   * The title of the issue.
   * @minLength 1
   */
  title: string;
  /** The contents of the issue, in Markdown. */
  body?: string | null;
  /**
   * Labels to associate with this issue.
   * @uniqueItems
   */
  labels?: string[];
  /** @maxItems 10 */
  assignees?: Login[];
  /** The number of the milestone to associate this issue with. */
  milestone?: number | null;
  /**
   * The issue type.
   * @default "task"
   */
  type?: "bug" | "feature" | "task";
}

/**
 * A GitHub login.
 * @pattern ^[A-Za-z0-9-]+$
 */
type Login = string;

/** The created issue. */
interface GithubCreateIssueResult {
  /**
   * The issue number, unique per repository.
   * @integer
   * @minimum 1
   */
  number: number;
  /** @format uri */
  url: string;
  state: "open";
  /** @format date-time */
  created_at?: string;
}

interface GithubMergePullRequestArgs {
  owner: string;
  repo: string;
  /** Pull request number. */
  pullNumber: number;
  /**
   * Merge method.
   *
   * Defaults to the repository's setting.
   */
  merge_method?: "merge" | "squash" | "rebase";
  /**
   * Use commit_message *\/ instead.
   * @deprecated
   */
  commit_title?: string;
}

interface GithubSearchIssuesArgs {
  /** Search query, e.g. `repo:octocat/hello-world is:open label:bug`. */
  q: string;
  sort?: "comments" | "reactions" | "created" | "updated";
  /** @default "desc" */
  order?: "asc" | "desc";
  /**
   * @default 30
   * @integer
   * @minimum 1
   * @maximum 100
   */
  per_page?: number;
  /**
   * @default 1
   * @integer
   * @minimum 1
   */
  page?: number;
}

interface GithubSearchIssuesResult {
  /** @integer */
  total_count: number;
  incomplete_results?: boolean;
  items: {
    /** @integer */
    number: number;
    title: string;
    state: "open" | "closed";
    labels?: {
      name?: string;
      /** @pattern ^[0-9a-f]{6}$ */
      color?: string;
    }[];
    /** Present when the issue is a pull request. */
    pull_request?: { [key: string]: unknown };
  }[];
}
