import { z } from '@hono/zod-openapi';

/** One broken rule, as problem+json bodies and per-event usage rejections list them. */
export const ViolationSchema = z.object({ propertyPath: z.string(), message: z.string(), code: z.string() });

/** RFC 9457 problem details: the body of every error response. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    requestId: z.string().optional(),
    violations: z.array(ViolationSchema).optional(),
  })
  .openapi('Problem');
export type Problem = z.infer<typeof ProblemSchema>;
