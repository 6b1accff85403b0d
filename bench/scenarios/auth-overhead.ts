import { Controller, Get, Module } from '@nestjs/common';
import { createServer } from 'node:http';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { Public } from '../../src/platform/http/public.decorator';
import { bootApp, httpClient, interleave, ms, stats, timeRequest } from '../support';

/** The same trivial handler twice: once public, once behind the key guard and the rate limiter. */
@Controller('bench')
class OverheadController {
  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }

  @Get('guarded')
  guarded() {
    return { ok: true };
  }
}

@Module({ controllers: [OverheadController] })
class OverheadModule {}

/**
 * Issue 2's budget: the auth guard, the rate limiter and the request id together
 * add at most 1 ms to the median latency of a request over the same route without
 * them. Both routes go through request id + logging (they cannot be removed), so
 * the difference is auth + rate limit; the raw node:http server is the floor.
 */
export async function authOverhead() {
  const { app, origin } = await bootApp({}, [OverheadModule]);
  const { apiKey } = await app.get(AccountsService).createAccount({ name: 'bench', plan: 'pro', active: true });

  const raw = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const rawOrigin = `http://127.0.0.1:${(raw.address() as { port: number }).port}`;

  const api = httpClient(origin);
  const rawClient = httpClient(rawOrigin);
  const variants = {
    raw: () => timeRequest(rawClient, '/'),
    open: () => timeRequest(api, '/bench/open'),
    guarded: () => timeRequest(api, '/bench/guarded', { 'x-api-key': apiKey }),
  };
  await interleave(variants, 2, 200); // warm-up: JIT, connection pools, prepared plans
  const samples = await interleave(variants, 10, 300);
  await Promise.all([api.close(), rawClient.close()]);
  raw.close();
  await app.close();

  const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
  const overhead = s.guarded.p50 - s.open.p50;
  return {
    name: 'auth-overhead',
    budget: 'guarded p50 - open p50 <= 1 ms',
    pass: overhead <= 1,
    results: { raw: s.raw, open: s.open, guarded: s.guarded, overheadP50Ms: overhead },
    table: [
      ['variant', 'p50', 'p95', 'n'],
      ['raw node:http', ms(s.raw.p50), ms(s.raw.p95), String(s.raw.n)],
      ['public route (request id, logging)', ms(s.open.p50), ms(s.open.p95), String(s.open.n)],
      ['same route + auth guard + rate limiter', ms(s.guarded.p50), ms(s.guarded.p95), String(s.guarded.n)],
      ['**auth + rate limit overhead (p50)**', `**${ms(overhead)}**`, '', ''],
    ],
  };
}
