// Signs in and saves the OpenAPI document of the running server (it describes what this user
// may see, so sign in as the user the client will act as). Settings from the environment.
import { writeFileSync } from 'node:fs';

const baseUrl = process.env.CORRAL_URL ?? 'http://127.0.0.1:13000';
const account = process.env.CORRAL_ACCOUNT ?? 'root@localhost';
const password = process.env.CORRAL_PASSWORD;
if (!password) throw new Error('set CORRAL_PASSWORD (and CORRAL_ACCOUNT, CORRAL_URL if not the defaults)');

const signIn = await fetch(`${baseUrl}/api/auth:signIn`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ account, password }),
});
if (!signIn.ok) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
const { data } = await signIn.json();
const document = await fetch(`${baseUrl}/api/openapi.json`, { headers: { authorization: `Bearer ${data.token}` } });
if (!document.ok) throw new Error(`openapi.json: ${document.status} ${await document.text()}`);
writeFileSync('corral.openapi.json', await document.text());
console.log('saved corral.openapi.json');
