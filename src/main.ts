import 'reflect-metadata';
import { loadConfigOrExit } from './config/config';
import { createHttpApp } from './http-app';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await createHttpApp(config);
  await app.listen(config.port);
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`API failed to start: ${error.message}\n`);
  process.exit(1);
});
