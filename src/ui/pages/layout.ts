import { type Html, html } from "../html.js";

/** What every page needs to link back to the server: the token rides on every URL. */
export interface PageContext {
  token: string;
  /** Where the store is, in words. */
  store: string;
  /** The dashboard's own preset: it judges the scopes whose project has no config file. */
  preset: string;
}

/** A dashboard URL with the token and the given parameters. */
export function link(ctx: PageContext, path: string, params: Record<string, string> = {}): string {
  const search = new URLSearchParams({ ...params, token: ctx.token });
  return `${path}?${search.toString()}`;
}

export function layout(ctx: PageContext, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · todo-continuation</title>
<link rel="stylesheet" href="${link(ctx, "/assets/style.css")}">
<script src="${link(ctx, "/assets/app.js")}" defer></script>
</head>
<body data-token="${ctx.token}">
<header class="top">
<a class="brand" href="${link(ctx, "/")}">todo-continuation</a>
<span class="where" title="Each scope is judged by its project's config file when it has one">${ctx.store} · preset ${ctx.preset}</span>
<span class="live-status" id="live-status" role="status" aria-live="polite"></span>
</header>
<main id="main">
${body}
</main>
</body>
</html>
`;
}
