/**
 * The external identity provider of `oidc` mode, through openid-client (a certified relying
 * party): authorization code with PKCE S256, state and nonce; the ID token's and the UserInfo
 * claims together name the person and their groups. The tokens it gives are kept to ask it again
 * later: with its refresh token when it gave one, else with the access token at UserInfo.
 */
import type { Auth } from '@svc/core';
import * as client from 'openid-client';

export interface IdentityProvider extends Auth.IdentityProviderPort {
  /** Where to send the browser, with this sign-in's state, nonce and PKCE challenge. */
  authorizationUrl(input: {
    redirectUri: string;
    state: string;
    nonce: string;
    codeVerifier: string;
  }): Promise<URL>;
  /** The claims of the person who came back to `currentUrl`, once the code is exchanged and checked, and the tokens it gave. */
  claims(
    currentUrl: URL,
    pending: { state: string; nonce: string; codeVerifier: string },
  ): Promise<{ claims: Record<string, unknown>; tokens: Auth.ProviderTokens }>;
}

type Tokens = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

function tokensOf(tokens: Tokens, now: number): Auth.ProviderTokens {
  const expiresIn = tokens.expiresIn();
  return {
    refresh_token: tokens.refresh_token ?? null,
    access_token: tokens.access_token,
    access_expires_at: expiresIn === undefined ? null : new Date(now + expiresIn * 1000).toISOString(),
  };
}

/** The ID token's claims over UserInfo's, UserInfo asked for the subject the ID token names. */
async function claimsOf(configured: client.Configuration, tokens: Tokens, sub: string) {
  const idClaims = tokens.claims();
  if (idClaims && idClaims.sub !== sub) throw new Error('the ID token names another subject');
  const userInfo = await client.fetchUserInfo(configured, tokens.access_token, sub);
  return { ...userInfo, ...idClaims };
}

/** The provider said no (4xx with an OAuth error, a refused access token, another subject): not an outage. */
const refusal = (error: unknown): string | null => {
  if (error instanceof client.ResponseBodyError && error.status < 500) return error.error;
  if (error instanceof client.WWWAuthenticateChallengeError) return 'the access token was refused';
  if (error instanceof Error && /subject/i.test(error.message)) return 'another subject';
  return null;
};

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
      return {
        claims: await claimsOf(configured, tokens, idClaims.sub),
        tokens: tokensOf(tokens, Date.now()),
      };
    },
    async recheck(tokens, sub) {
      const configured = await config();
      try {
        if (tokens.refresh_token) {
          const refreshed = await client.refreshTokenGrant(configured, tokens.refresh_token);
          return {
            kind: 'claims',
            claims: await claimsOf(configured, refreshed, sub),
            tokens: tokensOf(refreshed, Date.now()),
          };
        }
        const usable =
          tokens.access_token &&
          (!tokens.access_expires_at || Date.parse(tokens.access_expires_at) > Date.now());
        if (!tokens.access_token || !usable) {
          return {
            kind: 'refused',
            reason: 'the provider gave no refresh token, and its access token expired',
          };
        }
        const userInfo = await client.fetchUserInfo(configured, tokens.access_token, sub);
        return { kind: 'claims', claims: { ...userInfo }, tokens };
      } catch (error) {
        const reason = refusal(error);
        if (reason === null) throw error;
        return { kind: 'refused', reason };
      }
    },
  };
}
