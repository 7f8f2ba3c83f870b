// Request parameters and paging as the GitHub REST API names them.

/** `owner/repo` as the `{owner}` and `{repo}` of a route. */
export const split = (repository: string) => {
  const [owner = '', repo = ''] = repository.split('/');
  return { owner, repo };
};

/** The page a Link header calls `next`; null on the last page. */
export const nextPage = (link: string | number | undefined) => {
  const match = /[?&]page=(\d+)[^>]*>;\s*rel="next"/.exec(String(link ?? ''));
  return match ? Number(match[1]) : null;
};
