/**
 * The external identity provider of `oidc` mode, through openid-client (a certified relying
 * party): authorization code with PKCE S256, state and nonce; the ID token's and the UserInfo
 * claims together name the person and their groups.
 */
import type { Auth } from '@svc/core';
import * as client from 'openid-client';

export interface IdentityProvider {
  /** Where to send the browser, with this sign-in's state, nonce and PKCE challenge. */
  authorizationUrl(input: {
    redirectUri: string;
    state: string;
    nonce: string;
    codeVerifier: string;
  }): Promise<URL>;
  /** The claims of the person who came back to `currentUrl`, once the code is exchanged and checked. */
  claims(
    currentUrl: URL,
    pending: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Record<string, unknown>>;
}

export function openIdProvider(settings: Auth.AuthSettings & { mode: 'oidc' }): IdentityProvider {
  const { oidc } = settings;
  let configuration: Promise<client.Configuration> | undefined;
  const config = () => {
    configuration ??= client
      .discovery(
        new URL(oidc.issuer),
        oidc.client_id,
        oidc.client_secret,
        undefined,
        // A plain-http issuer is only ever the local provider on loopback (npm start -- --auth oidc).
        new URL(oidc.issuer).protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {},
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };
  return {
    async authorizationUrl({ redirectUri, state, nonce, codeVerifier }) {
      return client.buildAuthorizationUrl(await config(), {
        redirect_uri: redirectUri,
        scope: oidc.scopes.join(' '),
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
    },
    async claims(currentUrl, pending) {
      const configured = await config();
      const tokens = await client.authorizationCodeGrant(configured, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the identity provider returned no ID token');
      const userInfo = await client.fetchUserInfo(configured, tokens.access_token, idClaims.sub);
      return { ...userInfo, ...idClaims };
    },
  };
}
