/**
 * The script of /api/docs. It takes the token from the URL fragment (#token=…, never sent to
 * the server) or from this tab's sessionStorage (`corral.token`, shared with the studio), loads
 * the document with it and hands it to Swagger UI, whose requests then carry it. Without a
 * token, or when the document answers 401, it shows a sign-in box (account and password, or a
 * pasted token) instead of a bare "Unauthorized". validatorUrl null: Swagger UI would otherwise
 * send the document to an outside validator.
 */
export function docsInitScript(prefix: string): string {
  const api = JSON.stringify(prefix);
  return `(function () {
  var prefix = ${api};
  var given = /[#&]token=([^&]+)/.exec(location.hash);
  if (given) { sessionStorage.setItem('corral.token', decodeURIComponent(given[1])); history.replaceState(null, '', location.pathname); }
  var box = document.getElementById('corral-sign-in');
  function show(message) {
    box.hidden = false;
    document.getElementById('corral-sign-in-message').textContent = message || '';
  }
  function start(token) {
    fetch(prefix + '/openapi.json', { headers: token ? { authorization: 'Bearer ' + token } : {} }).then(function (response) {
      if (response.status === 401) {
        sessionStorage.removeItem('corral.token');
        return show(token ? 'The token was refused (expired or revoked): sign in again.' : 'Sign in to see the collections your role may use.');
      }
      return response.json().then(function (spec) {
        box.hidden = true;
        window.ui = SwaggerUIBundle({ spec: spec, dom_id: '#swagger-ui', deepLinking: true, displayOperationId: true, validatorUrl: null, docExpansion: 'none',
          requestInterceptor: function (request) { if (token && !request.headers.Authorization) request.headers.Authorization = 'Bearer ' + token; return request; } });
      });
    }).catch(function (error) { show('The document did not load: ' + error); });
  }
  document.getElementById('corral-sign-in-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var pasted = document.getElementById('corral-token').value.trim();
    if (pasted) { sessionStorage.setItem('corral.token', pasted); return start(pasted); }
    fetch(prefix + '/auth:signIn', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: document.getElementById('corral-account').value, password: document.getElementById('corral-password').value }) })
      .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, body: body }; }); })
      .then(function (answer) {
        if (!answer.ok) return show((answer.body.errors || [{ message: 'sign-in failed' }])[0].message);
        sessionStorage.setItem('corral.token', answer.body.data.token);
        start(answer.body.data.token);
      }).catch(function (error) { show(String(error)); });
  });
  start(sessionStorage.getItem('corral.token'));
})();
`;
}

/** The sign-in box the script shows when the document needs a token it does not have. */
export const SIGN_IN_BOX = `<section id="corral-sign-in" hidden style="max-width:32rem;margin:1.5rem auto;padding:1rem 1.25rem;border:1px solid #ccc;border-radius:8px;font-family:sans-serif">
<h1 style="font-size:1.2rem;margin-top:0">Corral API reference</h1>
<p id="corral-sign-in-message" role="alert"></p>
<form id="corral-sign-in-form">
<p><label>Email or username<br><input id="corral-account" autocomplete="username" style="width:100%"></label></p>
<p><label>Password<br><input id="corral-password" type="password" autocomplete="current-password" style="width:100%"></label></p>
<p><label>or a token (sign-in token or API key)<br><input id="corral-token" style="width:100%"></label></p>
<p><button type="submit">Sign in</button></p>
</form>
</section>`;
