/** The few pages a person sees while signing in: plain HTML, every value escaped. */

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => escapes[ch] as string);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Preview Composition Service</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem}
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function signInPage(input: { returnTo: string; error: string | null; username: string }): string {
  return page(
    'Sign in',
    `${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/auth/login">
<input type="hidden" name="return_to" value="${escapeHtml(input.returnTo)}">
<label for="username">User name</label><input id="username" name="username" autocomplete="username" value="${escapeHtml(input.username)}" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${escapeHtml(message)}</p>`);
}
