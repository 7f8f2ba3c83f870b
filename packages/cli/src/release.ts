/** Stamped by the bundler (scripts/build.ts); running from source reports the package as `dev`. */
declare const __SVC_RELEASE__: string | undefined;
declare const __SVC_COMMIT__: string | undefined;

export const cliBuild = {
  release: typeof __SVC_RELEASE__ === 'string' ? __SVC_RELEASE__ : 'dev',
  commit: typeof __SVC_COMMIT__ === 'string' ? __SVC_COMMIT__ : 'unknown',
};
