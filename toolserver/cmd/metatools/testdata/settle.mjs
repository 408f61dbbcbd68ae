// settle waits until every upstream of the metatools a client is
// connected to has been up or failed once, as list_namespaces reports,
// for at most 30 seconds.
export async function settle(client) {
  for (let i = 0; ; i++) {
    const res = await client.callTool({ name: "list_namespaces", arguments: {} });
    const ups = res.structuredContent?.upstreams ?? [];
    if (ups.length > 0 && ups.every((u) => u.state !== "connecting")) return;
    if (i > 300) throw new Error("the upstreams did not settle: " + JSON.stringify(ups));
    await new Promise((r) => setTimeout(r, 100));
  }
}
