import { describe, expect, it } from 'vitest';
import { api, del, expect422, expectProblem, get, ids, patch, post, put } from '../support/api';
import { createTenant, created, keyWith, ok } from '../support/builders';

// Offer templates (spec §2.6, §4.1 GET /offer-templates with type and type[]): rich-text sections
// kept in the safe subset, the resource conventions of every catalogue record.

describe('offer templates', () => {
  it('stores sections sanitized, answers them on get, and changes them by PUT and PATCH', async () => {
    const t = await createTenant();
    const made = await created(
      post(t, '/offer-templates', {
        name: 'Terms',
        type: 'section',
        sections: ['<h2 onclick="x()">Terms</h2><p>Pay within <strong>14 days</strong>.<script>steal()</script></p>', '<img src=x onerror=alert(1)>', 'Plain text\n\nsecond'],
      }),
    );
    // The image held no text: its section is gone.
    expect(made.sections).toEqual(['<h2>Terms</h2><p>Pay within <strong>14 days</strong>.</p>', '<p>Plain text</p><p>second</p>']);
    expect(await ok(get(t, `/offer-templates/${made.id}`))).toEqual(made);

    const replaced = await ok(put(t, `/offer-templates/${made.id}`, { name: 'AGB', type: 'offer', sections: ['<p><a href="javascript:alert(1)">AGB</a></p>'] }));
    expect(replaced).toMatchObject({ name: 'AGB', type: 'offer', sections: ['<p>AGB</p>'] });
    const patched = await ok(patch(t, `/offer-templates/${made.id}`, { name: 'AGB 2027' }));
    expect(patched).toMatchObject({ name: 'AGB 2027', type: 'offer', sections: ['<p>AGB</p>'] });

    expect((await del(t, `/offer-templates/${made.id}`)).status).toBe(204);
    expectProblem(await get(t, `/offer-templates/${made.id}`), 404);
  });

  it('lists by type, one value or several (type, type[])', async () => {
    const t = await createTenant();
    const a = await created(post(t, '/offer-templates', { name: 'A', type: 'section', sections: ['<p>a</p>'] }));
    const b = await created(post(t, '/offer-templates', { name: 'B', type: 'offer', sections: ['<p>b</p>'] }));
    const c = await created(post(t, '/offer-templates', { name: 'C', type: 'legal', sections: ['<p>c</p>'] }));
    expect(ids(await get(t, '/offer-templates'))).toEqual([a.id, b.id, c.id]);
    expect(ids(await get(t, '/offer-templates?type=offer'))).toEqual([b.id]);
    expect(ids(await get(t, '/offer-templates?type[]=section&type[]=legal'))).toEqual([a.id, c.id]);
    expect(ids(await get(t, '/offer-templates?type%5B%5D=legal'))).toEqual([c.id]);
    expect((await ok(get(t, '/offer-templates?type=none'))).data).toEqual([]);
    expect((await ok(get(t, '/offer-templates?limit=1&page=2'))).meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 1, currentPage: 2, lastPage: 3, pageTotalItems: 1 });
    expectProblem(await get(t, '/offer-templates?kind=offer'), 400);
  });

  it('refuses bad input with one violation per rule, and other tenants see nothing', async () => {
    const t = await createTenant();
    expect422(await post(t, '/offer-templates', { type: 'Bad Type!', sections: 'x', color: 'red' }), ['color', 'name', 'sections', 'type']);
    expect422(await post(t, '/offer-templates', { name: 'Huge', sections: ['x'.repeat(50_001)] }), ['sections[0]']);
    expect422(await post(t, '/offer-templates', { name: 'Empty', sections: ['<script>only()</script>'] }), ['sections']);
    const mine = await created(post(t, '/offer-templates', { name: 'Mine', sections: [] }));
    expect(mine.type).toBe('section');
    const other = await createTenant();
    expectProblem(await get(other, `/offer-templates/${mine.id}`), 404);
    expect((await ok(get(other, '/offer-templates'))).data).toEqual([]);
  });

  it('needs offer-template permissions', async () => {
    const t = await createTenant();
    const reader = await keyWith(t, ['offer-template:read']);
    expect((await api('/offer-templates', { token: reader })).status).toBe(200);
    expectProblem(await api('/offer-templates', { token: reader, body: { name: 'x' } }), 403);
  });
});
