import * as Boom from '@hapi/boom';
import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { KEY_ID_HEADER, ReporterKeysError, SIGNATURE_HEADER, verifyReport, type ReporterKeys } from '../../../lib/secret-scanning';
import { validationMessage, validationPreferences } from '../../../lib/validation';
import type { LeakReports, ReportedToken } from '../services/leaks';

// POST /v1/secret-scanning/report: the body is kept raw (the signature covers its exact bytes), verified before
// anything reads it, then parsed and checked here.
export const REPORT_MAX_BYTES = 1024 * 1024;

const report = Joi.array().items(Joi.object({
    token: Joi.string().max(1024).required(),
    type: Joi.string().max(128).required(),
    url: Joi.string().max(2048).allow('').required(),
    source: Joi.string().max(64)
})).min(1).prefs(validationPreferences);

export function secretScanningRoutes(leaks: LeakReports, keys: ReporterKeys): RouteHandlers {
    return {
        'secretScanning.report': {
            payload: { parse: false, output: 'data', maxBytes: REPORT_MAX_BYTES },
            validate: { payload: true },
            verify: async (request, h) => {
                const identifier = request.headers[KEY_ID_HEADER];
                const signature = request.headers[SIGNATURE_HEADER];
                if (typeof identifier !== 'string' || typeof signature !== 'string' || !identifier || !signature) {
                    throw Boom.unauthorized('The report is not signed: send the Github-Public-Key-Identifier and Github-Public-Key-Signature headers');
                }

                let key;
                try {
                    key = await keys.find(identifier);
                }
                catch (err) {
                    if (err instanceof ReporterKeysError) {
                        request.log(['warn', 'secret-scanning'], err.message);
                        throw Boom.serverUnavailable('The reporter\'s public keys could not be fetched: send the report again later');
                    }

                    throw err;
                }

                if (key === 'later') {
                    const later = Boom.serverUnavailable('The key that signed the report is not among the reporter\'s published keys yet: send the report again in a minute');
                    later.output.headers['retry-after'] = '60';
                    throw later;
                }

                if (!key || !verifyReport(request.payload as Buffer, signature, key)) {
                    throw Boom.unauthorized('The report\'s signature does not verify');
                }

                return h.continue;
            },
            handler: async (request) => {
                let body: unknown;
                try {
                    body = JSON.parse((request.payload as Buffer).toString('utf8'));
                }
                catch {
                    throw Boom.badRequest('The request body is not valid JSON');
                }

                if (!Array.isArray(body) || !body.length) {
                    throw Boom.badRequest('The request body must be a non-empty list of {"token", "type", "url"} objects');
                }

                const checked = report.validate(body);
                if (checked.error) {
                    throw Boom.badRequest(validationMessage(checked.error, 'The request body'));
                }

                return leaks.report(checked.value as ReportedToken[]);
            }
        }
    };
}
