// GET /cards: the account's cards and their voucher products; PUT /cards/{id}/products/{product}:
// one product switched on or off.
import type { FastifyInstance } from 'fastify';
import { AccountCardAnswer, AccountCardList, CardProductParams, CardProductRequest } from '../../contract/profile.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { cardsOf, setProduct } from './products.ts';

export async function cardRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get(
    '/cards',
    {
      schema: {
        tags: ['cards'],
        summary: "The account's cards, masked, with their voucher products",
        response: responses({ 200: AccountCardList }, [400, 401, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => ({ data: await cardsOf(ctx.db, request.session!.userId) }),
  );

  app.put<{ Params: CardProductParams; Body: CardProductRequest }>(
    '/cards/:id/products/:product',
    {
      schema: {
        tags: ['cards'],
        summary: 'Switch a voucher product of a card on or off',
        params: jsonSchema(CardProductParams),
        body: jsonSchema(CardProductRequest),
        response: responses({ 200: AccountCardAnswer }, [400, 401, 404, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => ({
      data: await setProduct(
        ctx,
        request.session!.userId,
        request.params.id,
        request.params.product,
        request.body.active,
        { ip: request.ip, deviceKey: request.deviceKey },
      ),
    }),
  );
}
