import type { TenantTable } from '../../platform/database/tenant-tables';

export const JOB_REQUESTS_TENANT_TABLES: readonly TenantTable[] = [{ table: 'job_requests' }, { table: 'job_request_comments' }];
