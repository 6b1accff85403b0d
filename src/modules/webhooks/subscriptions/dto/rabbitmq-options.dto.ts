import { IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../../../../platform/http/validators';
import { AMQP_SHORT_STRING_MAX } from '../../rabbitmq-destination.rules';

/**
 * `rabbitmq` of a subscription whose url is amqp(s) (issue 43): the exchange ("" = the default exchange)
 * and the routing key (absent: the event's name). Whether it fits the url is the service's rule.
 */
export class RabbitmqOptionsDto {
  @IsString()
  @MaxLength(AMQP_SHORT_STRING_MAX)
  exchange: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(AMQP_SHORT_STRING_MAX)
  routingKey?: string;
}
