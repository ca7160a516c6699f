// GET /api/history and GET /api/history/summary: the signed-in account's security events, a page at
// a time within a range of days and of categories, and its successful sign-ins per day for the graph.
import type { FastifyInstance } from 'fastify';
import { HISTORY_CATEGORIES, historyRange, type HistoryCategory } from '../../contract/history.ts';
import { HistoryPage, HistoryQuery, HistorySummary, HistorySummaryQuery } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { localeOfRequest } from '../http/locale.ts';
import { decodeCursor, historyPage, signInsPerDay } from './queries.ts';

function rangeOf(query: { from?: string; to?: string }) {
  const range = historyRange(query.from, query.to);
  if (!range) throw new ApiError('invalid_date_range');
  return range;
}

/** The categories asked for: null for all (none named, or `all`); a name that is no category is refused. */
function categoriesOf(text: string | undefined): HistoryCategory[] | null {
  if (text === undefined || text === 'all') return null;
  const names = [...new Set(text.split(','))];
  if (!names.every((name): name is HistoryCategory => (HISTORY_CATEGORIES as readonly string[]).includes(name)))
    throw new ApiError('validation_failed');
  return names.length === HISTORY_CATEGORIES.length ? null : names;
}

export async function historyRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get<{ Querystring: HistoryQuery }>(
    '/history',
    {
      schema: {
        tags: ['history'],
        summary:
          "The account's security events, newest first, a page at a time, within a range of UTC days and of categories",
        querystring: jsonSchema(HistoryQuery),
        response: responses({ 200: HistoryPage }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const range = rangeOf(request.query);
      const categories = categoriesOf(request.query.categories);
      const cursor = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      if (request.query.cursor !== undefined && cursor === null) throw new ApiError('invalid_request');
      const userId = request.session!.userId;
      // A sign-in's own event is written after its answer: it is written first.
      await ctx.signInRecords.settle(userId);
      reply.header('cache-control', 'no-store');
      return {
        ...(await historyPage(ctx.db, userId, { range, categories, cursor, locale: localeOfRequest(request) })),
        ...range,
      };
    },
  );

  app.get<{ Querystring: HistorySummaryQuery }>(
    '/history/summary',
    {
      schema: {
        tags: ['history'],
        summary: "The account's successful sign-ins on each UTC day of a range",
        querystring: jsonSchema(HistorySummaryQuery),
        response: responses({ 200: HistorySummary }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const range = rangeOf(request.query);
      const userId = request.session!.userId;
      await ctx.signInRecords.settle(userId);
      reply.header('cache-control', 'no-store');
      return { ...range, days: await signInsPerDay(ctx.db, userId, range) };
    },
  );
}
