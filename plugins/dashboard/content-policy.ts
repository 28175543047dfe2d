// Every dashboard page forbids framing and any script, style or image from elsewhere. Forms post to this site only;
// a page whose form ends in a redirect to another origin (the consent screen, back to the app) names that origin too,
// since browsers apply form-action to the redirects that follow a form post.
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
    return [
        'default-src \'self\'', 'script-src \'self\'', 'style-src \'self\'', 'img-src \'self\'', 'connect-src \'self\'',
        ['form-action \'self\'', ...formTargets].join(' '), 'frame-ancestors \'none\'', 'base-uri \'none\'', 'object-src \'none\''
    ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();
