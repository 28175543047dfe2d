import * as Boom from '@hapi/boom';
import Joi from 'joi';

import { publicReview, type Reviews } from '../../../lib/resources/reviews';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import type { Site } from '../models/site';
import { SITE } from './sites';

const params = Joi.object<{ siteName: string }, true>({ siteName: fields.name().required() });

// Review sites: the review lanes of lib/resources/reviews.ts. A review deploys the pull request's branch, which a
// site can only get by fetching and building its repository: that is the process runtime's work, so until a
// driver builds repositories a trigger of an open pull request is refused with the way to deploy files instead.
export function reviewRoutes(reviews: Reviews<Site>): RouteHandlers {
    return {
        'sites.reviewSites.list': route({
            params,
            handler: async (request) => {
                const site = SITE.of(request);
                return (await reviews.list(site)).map((review) => publicReview('site', site, review));
            }
        }),
        'sites.reviewSites.pullRequests': route({ params, handler: (request) => reviews.pullRequests(SITE.of(request)) }),
        'sites.reviewSites.trigger': route({
            params,
            payload: Joi.object<{ pullRequest: number }, true>({ pullRequest: Joi.number().integer().min(1).required() }),
            handler: async (request) => {
                const site = SITE.of(request);
                const pull = await reviews.openPull(site, request.payload.pullRequest);
                throw Boom.conflict(`Pull request #${pull.number} is open, but a review site deploys its branch (${pull.headBranch}) from the repository, ` +
                    `and this server has no runtime that fetches and builds a repository yet: upload the branch's built files with POST /v1/sites/${site.name}/upload instead`);
            }
        })
    };
}
