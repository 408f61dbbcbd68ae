// Package trust decides which upstream tools, prompts and resource
// templates the gateway may put in front of the model.
//
// A description is an instruction channel: an upstream can ship one that
// tells the model to read ~/.ssh/id_rsa and pass it as an argument, hide
// instructions in invisible Unicode tag characters, name a tool so that it
// passes for another server's, or change a tool after it was trusted. This
// package gives the catalogue four pieces to stop that:
//
//   - [FingerprintOf]: a SHA-256 of an [Item]'s canonical JSON (kind,
//     name, title, description, schemas, annotations, a prompt's
//     arguments, a template's URI template and MIME type), independent of
//     key order, spacing and number spelling. [ToolItem], [PromptItem] and
//     [ResourceTemplateItem] build items from the go-sdk's types.
//   - [Scanner]: rules as data ([Rule], [DefaultRules]) run over every
//     text of an item, schemas included, reporting [Finding]s with a
//     severity, the field, the byte span and a printable excerpt;
//     [Scanner.ScanName] checks a newcomer's name against the names the
//     model already sees ([Names], [Skeleton]).
//   - [Decide]: a pure function from the upstream's [Mode], the approved
//     fingerprint, the current one, the findings and the configuration's
//     pre-approved fingerprints to admit or quarantine, with a reason.
//   - [Store]: the pins on disk (bbolt), per upstream, kind and name: the
//     approved fingerprint and snapshot, and the version that waits for
//     review with its findings, reason and first-seen time.
//     [Store.Observe] runs the three above on a listing;
//     [Store.Pending], [Record.Diff] and [FormatChanges] show what waits;
//     [Store.Approve] and [Store.ApproveUpstream] let it in.
//
// # Modes
//
// An upstream is [ModeTrusted] (nothing checked), [ModePin] (the default:
// a new item is admitted and pinned; a changed one waits) or [ModeReview]
// (new and changed items wait). Under pin and review, an item with a
// high-severity finding waits too. An approved fingerprint is always
// admitted, whatever its findings: the operator saw them when approving.
//
// # Usage
//
// The catalogue opens one store for the process and calls Observe on every
// listing of every upstream (first connection, list_changed, refresh),
// then serves only the admitted items:
//
//	path, _ := trust.DefaultPath() // or the configured path
//	store, err := trust.Open(path)
//	...
//	names := trust.NewNames() // built-ins: names.Add(trust.BuiltinOwner, "math:eval"), ...
//	items := make([]trust.Item, 0, len(tools))
//	for _, t := range tools {
//		it, err := trust.ToolItem(upstream, t) // Namespace = upstream; set it to the exposed one
//		...
//		items = append(items, it)
//	}
//	verdicts, err := store.Observe(trust.Listing{Upstream: upstream, Kind: trust.KindTool,
//		Mode: mode, Items: items, PreApproved: pre, Names: names})
//	for _, v := range verdicts {
//		if !v.Admit {
//			log.Warn("quarantined", "id", v.ID, "reason", v.Reason)
//		}
//	}
//
// An operator lists what waits with [Store.Pending] and approves it; the
// next Observe of that upstream admits it.
//
// # Cost model
//
//   - [FingerprintOf]: O(size of the item): one JSON decode and re-encode
//     of each schema.
//   - [Scanner.Scan]: O(size of the item's texts). One byte pass per text
//     (plus a rune pass when it holds non-ASCII bytes), one word pass with
//     a map lookup per word that may be a trigger, and the regular
//     expressions of a rule only on windows of 128 bytes around its
//     triggers' occurrences. Schemas are walked without being decoded.
//     Scanning the 4,000 tools of BenchmarkScan (about 2 MB of text and
//     schemas), names included, takes about 55 ms.
//   - [Scanner.ScanName] and [Names.Add]: O(length of the name), expected
//     (a map keyed by the skeleton). [Names.RemoveOwner]: O(number of
//     names).
//   - [Decide]: O(findings + pre-approved fingerprints).
//   - [Store.Observe]: one write transaction (one fsync) per listing:
//     O(k log n) for k items in a store of n records, plus the scan of the
//     new and changed items only (approved, unchanged ones are not scanned
//     again) and an O(p log n) sweep of the upstream's p records of that
//     kind for stale pending versions. A listing of 500 pinned tools takes
//     about 35 ms (BenchmarkObserve): each item is fingerprinted and its
//     record decoded and checked.
//   - [Store.Pending]: O(n), every record read and checked.
//   - [Store.Approve]: O(k log n) for k IDs; [Store.ApproveUpstream]:
//     O(p log n).
//
// # Storage and processes
//
// Records are stored as a format byte and JSON. Decoding checks
// everything (the format, unknown fields, the ID against the key, each
// snapshot's fingerprint against its item), so a damaged or tampered
// record fails with an error wrapping [ErrCorrupt] instead of admitting
// anything. bbolt locks the file for the process that has it open:
// [Open] waits [DefaultOpenTimeout] for another process, then fails with
// code Unavailable. Replicas of a gateway keep a store each and share
// their approvals through the configuration's pre-approved fingerprints.
//
// # Rules
//
// [DefaultRules] is the rule table (see the package README for it and for
// the false-positive report on benign catalogues). High severity is kept
// for instructions aimed at the model, hidden characters, exfiltration and
// confusable names; a tool that merely works on files, keys or URLs is not
// high. [WithRules] replaces the table: checks written in Go are named by
// code ([CodeInvisibleTag] and the others), pattern rules carry trigger
// words and regular expressions.
package trust
