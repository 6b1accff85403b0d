import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import { Idempotent } from './idempotency.interceptor';

/**
 * POST routes by what they answer. Nest's POST default, 201, is for a create; a POST that acts on something
 * that exists (cancel, disable, rotate a secret) answers 200, and one that queues work for later (a test
 * delivery, a replay, a sync) answers 202. The status is part of the route, so the document reads it as is.
 * PostCreate is the create that takes an optional Idempotency-Key (properties, bookings, job requests, calendar feeds).
 */
export const PostCreate = (path?: string): MethodDecorator => applyDecorators(Post(path), Idempotent());

export const PostAction = (path?: string): MethodDecorator => applyDecorators(Post(path), HttpCode(200));

export const PostQueued = (path?: string): MethodDecorator => applyDecorators(Post(path), HttpCode(202));
