import { RuntimeResource } from '../../../lib/resources/model';

export type SiteSource = 'repository' | 'upload' | 'visual-builder';

/** A static site: a runtime resource whose deployments are stored files, served by the edge. */
export class Site extends RuntimeResource {
    static override tableName = 'sites';

    source!: SiteSource;
    spa!: boolean | number;
}
