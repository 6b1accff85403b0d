import { thrown } from '../../platform/errors/thrown';
import { UrlPolicyError } from '../../platform/net/url-policy.rules';
import { destinationIssues, isBrokerUrl, parseBrokerUrl, rabbitmqShown, routingKeyOf } from './rabbitmq-destination.rules';

describe('RabbitMQ destination rules', () => {
  it('tells a broker url from an HTTP one by its scheme', () => {
    expect(['amqp://h/', 'AMQPS://h', 'amqps://u:p@h:5671/v'].map(isBrokerUrl)).toEqual([true, true, true]);
    expect(['https://h/', 'http://h', 'amqpx://h', ' amqp://h'].map(isBrokerUrl)).toEqual([false, false, false, false]);
  });

  it('stores the url without its password, with its port, and reads the vhost from the path', () => {
    expect(parseBrokerUrl('amqps://Bot:s%40cret@MQ.Example.com/integrations')).toEqual({
      stored: 'amqps://Bot@mq.example.com:5671/integrations',
      password: 's@cret',
      tls: true,
      hostname: 'mq.example.com',
      port: 5671,
      username: 'Bot',
      vhost: 'integrations',
      policyUrl: 'https://mq.example.com:5671/',
    });
    expect(parseBrokerUrl('amqp://guest@127.0.0.1:5673/')).toMatchObject({
      stored: 'amqp://guest@127.0.0.1:5673',
      password: null,
      vhost: '/',
      policyUrl: 'http://127.0.0.1:5673/',
    });
    expect(parseBrokerUrl('amqp://h/%2Fteam')).toMatchObject({ vhost: '/team', stored: 'amqp://h:5672/%2Fteam' });
  });

  it('refuses what is not a broker url it can connect to', () => {
    for (const raw of ['amqp://', 'https://h/', 'amqp://h/a/b', 'amqp://h/?x=1', 'amqp://h/#f', 'amqp://h/%zz', 'amqp://u:%zz@h/']) {
      expect(thrown(() => parseBrokerUrl(raw))).toBeInstanceOf(UrlPolicyError);
    }
  });

  it('wants rabbitmq exactly with a broker url, and a routing key with the default exchange', () => {
    expect(destinationIssues('amqp://h/', { exchange: 'x' })).toEqual([]);
    expect(destinationIssues('https://h/', undefined)).toEqual([]);
    expect(destinationIssues('https://h/', null)).toEqual([]);
    expect(destinationIssues('amqp://h/', undefined).map((i) => i.pointer)).toEqual(['#/rabbitmq']);
    expect(destinationIssues('https://h/', { exchange: 'x' }).map((i) => i.pointer)).toEqual(['#/rabbitmq']);
    expect(destinationIssues('amqp://h/', { exchange: '' }).map((i) => i.pointer)).toEqual(['#/rabbitmq/routingKey']);
    expect(destinationIssues('amqp://h/', { exchange: '', routingKey: '' }).map((i) => i.pointer)).toEqual(['#/rabbitmq/routingKey']);
    expect(destinationIssues('amqp://h/', { exchange: '', routingKey: 'q' })).toEqual([]);
    expect(destinationIssues('amqp://h/', { exchange: 'é'.repeat(128) }).map((i) => i.pointer)).toEqual(['#/rabbitmq/exchange']);
    expect(destinationIssues('amqp://h/', { exchange: 'x', routingKey: 'é'.repeat(128) }).map((i) => i.pointer)).toEqual([
      '#/rabbitmq/routingKey',
    ]);
    expect(destinationIssues('amqp://h/', { exchange: 'é'.repeat(127) })).toEqual([]);
  });

  it('routes by the given key, else by the event name; shows the options in their order', () => {
    expect(routingKeyOf({ exchange: 'x' }, 'booking.create')).toBe('booking.create');
    expect(routingKeyOf({ exchange: 'x', routingKey: '' }, 'booking.create')).toBe('');
    expect(JSON.stringify(rabbitmqShown({ routingKey: 'k', exchange: 'x' } as never))).toBe('{"exchange":"x","routingKey":"k"}');
    expect(rabbitmqShown({ exchange: 'x' })).toEqual({ exchange: 'x' });
  });
});
