/**
 * RFC 6570 URI templates: every example of sections 1.2 and 3.2 as expansion vectors, syntax errors, encoding,
 * matching (MCP-style templates, query parameters, prefixes), hostile input, and the expand/match round trip.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import {
  MAX_MATCH_URI_LENGTH,
  UriTemplateError,
  parseUriTemplate,
  type UriTemplateValue,
  type UriTemplateVariables,
} from '../../core/uri-template/index.ts';

import { RFC_VARIABLES, SECTION_1_2, SECTION_3_2 } from './uri-template-vectors.ts';

function expand(template: string, variables: UriTemplateVariables = RFC_VARIABLES): string {
  return parseUriTemplate(template).expand(variables);
}

function match(template: string, uri: string): Record<string, string | string[]> | undefined {
  return parseUriTemplate(template).match(uri);
}

describe('uri template', () => {
  describe('expansion', () => {
    test('uri template - expands every example of RFC 6570 section 1.2 (levels 1 to 4)', () => {
      for (const [template, expected] of SECTION_1_2) assert.equal(expand(template), expected, template);
    });

    for (const [section, vectors] of Object.entries(SECTION_3_2)) {
      test(`uri template - expands every example of RFC 6570 section ${section}`, () => {
        for (const [template, expected] of vectors) assert.equal(expand(template), expected, template);
      });
    }

    test('uri template - expands the examples of RFC 6570 sections 1.1 and 2.4', () => {
      const foo = 'http://www.example.com/foo{?query,number}';
      assert.equal(
        expand(foo, { query: 'mycelium', number: '100' }),
        'http://www.example.com/foo?query=mycelium&number=100',
      );
      assert.equal(expand(foo, { number: '100' }), 'http://www.example.com/foo?number=100');
      assert.equal(expand(foo, {}), 'http://www.example.com/foo');
      assert.equal(expand('http://example.com/~{username}/', { username: 'fred' }), 'http://example.com/~fred/');
      assert.equal(
        expand('http://example.com/dictionary/{term:1}/{term}', { term: 'cat' }),
        'http://example.com/dictionary/c/cat',
      );
      assert.equal(
        expand('http://example.com/search{?q,lang}', { q: 'chien', lang: 'fr' }),
        'http://example.com/search?q=chien&lang=fr',
      );
      assert.equal(expand('{semi}', { semi: ';' }), '%3B');
      assert.equal(expand('{semi:2}', { semi: ';' }), '%3B');
      assert.equal(expand('{var:20}', { var: 'value' }), 'value');
      assert.equal(expand('find{?year*}', { year: ['1965', '2000', '2012'] }), 'find?year=1965&year=2000&year=2012');
      assert.equal(
        expand('/mapper{?address*}', { address: { city: 'Newport Beach', state: 'CA' } }),
        '/mapper?city=Newport%20Beach&state=CA',
      );
    });

    test('uri template - encodes non-ASCII values as UTF-8 and never leaves a bare "%"', () => {
      assert.equal(expand('{x}', { x: 'é' }), '%C3%A9');
      assert.equal(expand('{x}', { x: '€ 😀' }), '%E2%82%AC%20%F0%9F%98%80');
      assert.equal(expand('{+x}', { x: '😀/é' }), '%F0%9F%98%80/%C3%A9');
      assert.equal(expand('{x}', { x: 'a\uD800b' }), 'a%EF%BF%BDb', 'a lone surrogate becomes U+FFFD');
      assert.equal(expand('{x}', { x: '%41' }), '%2541', 'only + and # keep pct-encoded triplets');
      assert.equal(expand('{+x}', { x: '%41%zz%' }), '%41%25zz%25');
      assert.equal(expand('{#x}', { x: '%7e' }), '#%7e');
      const ascii = "-._~!$&'()*+,;=:/?#[]@ <>\"{}|\\^`";
      assert.equal(expand('{x}', { x: ascii }), '-._~%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%2F%3F%23%5B%5D%40%20%3C%3E%22%7B%7D%7C%5C%5E%60');
      assert.equal(expand('{+x}', { x: ascii }), "-._~!$&'()*+,;=:/?#[]@%20%3C%3E%22%7B%7D%7C%5C%5E%60");
      assert.equal(expand('café/{x}', { x: 'a' }), 'caf%C3%A9/a', 'non-ASCII literals are pct-encoded too');
      assert.equal(expand('a%2Fb{x}', { x: 'c' }), 'a%2Fbc', 'pct-encoded literals are copied');
    });

    test('uri template - prefix modifiers count code points, and pct-encoded triplets as one with + and #', () => {
      assert.equal(expand('{x:1}', { x: '😀a' }), '%F0%9F%98%80');
      assert.equal(expand('{x:2}', { x: 'é€x' }), '%C3%A9%E2%82%AC');
      assert.equal(expand('{+x:2}', { x: '%41bc' }), '%41b');
      assert.equal(expand('{x:2}', { x: '%41bc' }), '%254');
      assert.equal(expand('{x:9999}', { x: 'short' }), 'short');
      assert.equal(expand('{list:2}', { list: ['abc', 'def'] }), 'abc,def', 'a prefix does not apply to a list');
      assert.equal(expand('{?keys:1}', { keys: { a: 'bc' } }), '?keys=a,bc', 'nor to an associative array');
    });

    test('uri template - undefined values: missing, undefined, null, empty lists, empty or all-undefined maps', () => {
      const loose = { a: null, b: [], c: {}, d: { k: undefined }, e: [undefined, null] };
      const templates = ['{a,b,c,d,e}', '{+a,b}', '{#a,b,c}', '{.a,e}', '{/c,d}', '{;a,b}', '{?a,b,c,d,e}', '{&e}', '{x}'];
      for (const template of templates) {
        assert.equal(parseUriTemplate(template).expand(loose as unknown as UriTemplateVariables), '', template);
      }
      assert.equal(expand('{?a,b}', { a: ['x', undefined, 'y'] as unknown as string[] }), '?a=x,y');
      assert.equal(expand('{;k*}', { k: { a: '', b: 'v' } }), ';a;b=v');
      assert.equal(expand('{?k*}', { k: { a: '', b: 'v' } }), '?a=&b=v');
      // Section 3.2.1: "name" alone when the value is empty, except for form-style parameters.
      assert.equal(expand('{k*}', { k: { a: '', b: 'v' } }), 'a,b=v');
      assert.equal(expand('{;l*}', { l: ['', 'x'] }), ';l;l=x');
      assert.equal(expand('{?l*}', { l: ['', 'x'] }), '?l=&l=x');
      assert.equal(expand('{n,b}', { n: 42, b: true } as unknown as UriTemplateVariables), '42,true');
    });

    test('uri template - looks variables up as own properties only', () => {
      const template = parseUriTemplate('{constructor}{?toString,__proto__}');
      assert.equal(template.expand({}), '');
      const own = JSON.parse('{"__proto__":"p","constructor":"c"}') as UriTemplateVariables;
      assert.equal(template.expand(own), 'c?__proto__=p');
    });
  });

  describe('parsing', () => {
    test('uri template - reports variable names once each, in order, and keeps the source', () => {
      const template = parseUriTemplate('http://example.com/dictionary/{term:1}/{term}{?q,lang}{&q}{#a.b,c%20d}');
      assert.deepEqual(template.variableNames, ['term', 'q', 'lang', 'a.b', 'c%20d']);
      assert.equal(template.source, 'http://example.com/dictionary/{term:1}/{term}{?q,lang}{&q}{#a.b,c%20d}');
      assert.equal(String(template), template.source);
      assert.deepEqual(parseUriTemplate('no/expressions').variableNames, []);
      assert.equal(parseUriTemplate('').expand({}), '');
    });

    test('uri template - accepts every varname and modifier form of the grammar', () => {
      const templates = ['{a.b.c}', '{_1}', '{A%20b}', '{a:1}', '{a:9999}', '{a*,b:12,c}', '{+a*}', '{?a.b*}', 'é{x}\u{10FFFD}'];
      for (const template of templates) {
        assert.doesNotThrow(() => parseUriTemplate(template), template);
      }
    });

    test('uri template - throws UriTemplateError with the position of the bad character', () => {
      const cases: readonly (readonly [string, number, RegExp])[] = [
        ['{var', 0, /unclosed/],
        ['abc{var', 3, /unclosed/],
        ['a}b', 1, /without a matching/],
        ['{}', 0, /empty expression/],
        ['{=var}', 1, /reserved/],
        ['{,var}', 1, /reserved/],
        ['{!var}', 1, /reserved/],
        ['{@var}', 1, /reserved/],
        ['{|var}', 1, /reserved/],
        ['{$var}', 1, /invalid character/],
        ['{-var}', 1, /invalid character/],
        ['{ var}', 1, /invalid character/],
        ['{+}', 2, /expected a variable name/],
        ['{a,}', 3, /expected a variable name/],
        ['{a,,b}', 3, /expected a variable name/],
        ['{var name}', 4, /unexpected/],
        ['{a{b}', 2, /unexpected/],
        ['{.a.}', 3, /"\." in a variable name/],
        ['{a..b}', 2, /"\." in a variable name/],
        ['{/.a}', 2, /cannot start with/],
        ['{a%2}', 2, /pct-encoded/],
        ['{a%zz}', 2, /pct-encoded/],
        ['{var:}', 5, /1 to 9999/],
        ['{var:0}', 5, /1 to 9999/],
        ['{var:012}', 5, /1 to 9999/],
        ['{var:10000}', 5, /greater than 9999/],
        ['{var:3*}', 6, /unexpected/],
        ['{var*:3}', 5, /unexpected/],
        ['{var**}', 5, /unexpected/],
        ['a b{x}', 1, /not allowed in a literal/],
        ['a%zz', 1, /pct-encoded triplet/],
        ['a%2', 1, /pct-encoded triplet/],
        ['<{x}>', 0, /not allowed in a literal/],
        ['x"y', 1, /not allowed in a literal/],
        ["x'y", 1, /not allowed in a literal/],
        ['x\\y', 1, /not allowed in a literal/],
        ['x^y', 1, /not allowed in a literal/],
        ['x`y', 1, /not allowed in a literal/],
        ['x|y', 1, /not allowed in a literal/],
        ['x\ny', 1, /not allowed in a literal/],
        ['x\u0085', 1, /U\+0085/],
        ['x\uFDD0', 1, /U\+FDD0/],
        ['x\uD800y', 1, /U\+D800/],
        ['x\u{1FFFF}', 1, /U\+1FFFF/],
      ];
      for (const [template, position, reason] of cases) {
        assert.throws(
          () => parseUriTemplate(template),
          (error: unknown) => {
            assert.ok(error instanceof UriTemplateError, template);
            assert.ok(error instanceof Error);
            assert.equal(error.name, 'UriTemplateError');
            assert.equal(error._tag, 'UriTemplateError');
            assert.equal(error.template, template);
            assert.equal(error.position, position, `${template}: ${error.message}`);
            assert.match(error.reason, reason, template);
            assert.ok(error.message.includes(`position ${position}`), error.message);
            return true;
          },
          template,
        );
      }
    });
  });

  describe('matching', () => {
    test('uri template - matches MCP-style resource templates', () => {
      assert.deepEqual(match('file:///{path}', 'file:///README.md'), { path: 'README.md' });
      assert.deepEqual(match('file:///{path}', 'file:///a%2Fb%20c'), { path: 'a/b c' });
      assert.equal(match('file:///{path}', 'file:///a/b'), undefined, 'a simple variable does not span "/"');
      assert.equal(match('file:///{path}', 'file:///'), undefined, 'nor match nothing');
      assert.deepEqual(match('file:///{+path}', 'file:///home/user/my%20notes.md'), { path: 'home/user/my notes.md' });

      const repo = parseUriTemplate('github://repos/{owner}/{repo}');
      assert.deepEqual(repo.match('github://repos/modelcontextprotocol/typescript-sdk'), {
        owner: 'modelcontextprotocol',
        repo: 'typescript-sdk',
      });
      assert.equal(repo.match('github://repos/owner'), undefined);
      assert.equal(repo.match('github://repos/owner/'), undefined);
      assert.equal(repo.match('github://repos/a/b/c'), undefined);
      assert.equal(repo.match('gitlab://repos/a/b'), undefined);
      assert.equal(repo.expand({ owner: 'a b', repo: 'c/d' }), 'github://repos/a%20b/c%2Fd');

      const rows = parseUriTemplate('db://{table}/rows{?limit,offset}');
      assert.deepEqual(rows.match('db://users/rows'), { table: 'users' });
      assert.deepEqual(rows.match('db://users/rows?limit=10'), { table: 'users', limit: '10' });
      assert.deepEqual(rows.match('db://users/rows?offset=20&limit=10'), { table: 'users', limit: '10', offset: '20' });
      assert.deepEqual(rows.match('db://users/rows?limit='), { table: 'users', limit: '' });
      assert.deepEqual(rows.match('db://users/rows?limit'), { table: 'users', limit: '' });
      assert.deepEqual(rows.match('db://a%20b/rows?limit=a%26b%3Dc'), { table: 'a b', limit: 'a&b=c' });
      assert.equal(rows.match('db://users/rows?limit=1&sort=name'), undefined, 'unknown parameter');
      assert.equal(rows.match('db://users/rows?limit=1&limit=2'), undefined, 'repeated parameter');
      assert.equal(rows.match('db://users/rows#top'), undefined);
      assert.equal(rows.match('db://users/columns'), undefined);
    });

    test('uri template - matches the level 4 forms MCP servers use', () => {
      assert.deepEqual(match('x://{+base}/{+rest}', 'x://a/b/c'), { base: 'a/b', rest: 'c' }, 'leftmost-greedy');
      assert.deepEqual(
        match('x://{+base}{/segments*}', 'x://a/b/c'),
        { base: 'a', segments: ['b', 'c'] },
        'an expression stops at the lead character of the next one',
      );
      assert.deepEqual(match('x://h{/segments*}', 'x://h/a/b%2Fc/'), { segments: ['a', 'b/c', ''] });
      assert.deepEqual(match('x://h{/segments*}', 'x://h'), {});
      assert.deepEqual(match('x://h{/a,b}', 'x://h/1/2'), { a: '1', b: '2' });
      assert.equal(match('x://h{/a,b}', 'x://h/1/2/3'), undefined);
      assert.deepEqual(match('x://h{.ext}', 'x://h.tar.gz'), { ext: 'tar.gz' });
      assert.deepEqual(match('x://h{.parts*}', 'x://h.tar.gz'), { parts: ['tar', 'gz'] });
      assert.deepEqual(match('files/{name}{.ext}', 'files/archive.tar.gz'), { name: 'archive', ext: 'tar.gz' });
      assert.deepEqual(match('files/{name}{.ext}', 'files/README'), { name: 'README' });
      assert.deepEqual(match('doc{#frag}', 'doc#a/b?c#d'), { frag: 'a/b?c#d' });
      assert.deepEqual(match('doc{#frag}', 'doc#'), { frag: '' });
      assert.deepEqual(match('doc{#frag}', 'doc'), {});
      // `{+var}` stops at a later query or fragment.
      assert.deepEqual(match('file:///{+path}{?rev}', 'file:///a/b?rev=3'), { path: 'a/b', rev: '3' });
      assert.deepEqual(match('file:///{+path}{#line}', 'file:///a/b#L3'), { path: 'a/b', line: 'L3' });
      assert.deepEqual(match('q://s?fixed=yes{&x,y}', 'q://s?fixed=yes&y=2&x=1'), { x: '1', y: '2' });
      assert.deepEqual(match('q://s{?a}{&b}', 'q://s?a=1&b=2'), { a: '1', b: '2' });
      assert.deepEqual(match('q://s{?a}{&b}', 'q://s&b=2'), { b: '2' });
      assert.deepEqual(match('q://s{?tags*,limit}', 'q://s?tags=a&limit=5&tags=b'), { tags: ['a', 'b'], limit: '5' });
      assert.deepEqual(match('m{;lat,long}', 'm;long=2;lat'), { lat: '', long: '2' });
      assert.deepEqual(match('m{;list*}', 'm;list=a;list=b'), { list: ['a', 'b'] });
      assert.deepEqual(match('{x,y}', '1,2'), { x: '1', y: '2' });
      assert.deepEqual(match('{x,y}', '1'), { x: '1' });
      assert.deepEqual(match('{x}', 'a,b'), { x: 'a,b' }, 'a non-exploded list comes back joined');
      assert.deepEqual(match('{list*}', 'a,b%2Cc'), { list: ['a', 'b,c'] });
    });

    test('uri template - matches the expansions of the RFC examples back to their variables', () => {
      const cases: readonly (readonly [string, Record<string, string | string[]>])[] = [
        ['{var}', { var: 'value' }],
        ['{hello}', { hello: 'Hello World!' }],
        ['{half}', { half: '50%' }],
        ['{x,hello,y}', { x: '1024', hello: 'Hello World!', y: '768' }],
        ['{+path}/here', { path: '/foo/bar' }],
        ['here?ref={+path}', { path: '/foo/bar' }],
        ['{+base}index', { base: 'http://example.com/home/' }],
        ['{#path,x}/here', { path: '/foo/bar', x: '1024' }],
        ['X{.x,y}', { x: '1024', y: '768' }],
        ['www{.dom*}', { dom: ['example', 'com'] }],
        ['{/who,dub}', { who: 'fred', dub: 'me/too' }],
        ['{/var,empty}', { var: 'value', empty: '' }],
        ['{/var:1,var}', { var: 'value' }],
        ['{/count*}', { count: ['one', 'two', 'three'] }],
        ['{;v,empty,who}', { v: '6', empty: '', who: 'fred' }],
        ['{;count*}', { count: ['one', 'two', 'three'] }],
        ['{?x,y,empty}', { x: '1024', y: '768', empty: '' }],
        ['{?count*}', { count: ['one', 'two', 'three'] }],
        ['?fixed=yes{&x}', { x: '1024' }],
        ['{&x,y,empty}', { x: '1024', y: '768', empty: '' }],
        ['{?var:3}', { var: 'val' }],
        ['{keys}', { keys: 'semi,;,dot,.,comma,,' }],
      ];
      for (const [source, expected] of cases) {
        const template = parseUriTemplate(source);
        assert.deepEqual(template.match(template.expand(RFC_VARIABLES)), expected, source);
      }
    });

    test('uri template - checks prefix lengths and repeated names', () => {
      const dictionary = parseUriTemplate('http://example.com/dictionary/{term:1}/{term}');
      assert.deepEqual(dictionary.match('http://example.com/dictionary/c/cat'), { term: 'cat' });
      assert.equal(dictionary.match('http://example.com/dictionary/d/cat'), undefined);
      assert.equal(dictionary.match('http://example.com/dictionary/ca/cat'), undefined);
      assert.deepEqual(match('{x:2}', '%C3%A9%E2%82%AC'), { x: 'é€' }, 'prefix lengths count code points');
      assert.equal(match('{x:2}', 'abc'), undefined);
      assert.deepEqual(match('{a}/{a}', 'x/x'), { a: 'x' });
      assert.equal(match('{a}/{a}', 'x/y'), undefined);
    });

    test('uri template - decodes pct-encoding as UTF-8 and rejects what is not', () => {
      assert.deepEqual(match('{x}', '%F0%9F%98%80%20a+b'), { x: '😀 a+b' }, '"+" is not a space');
      assert.deepEqual(match('{x}', '%EF%BB%BFa'), { x: '\uFEFFa' }, 'a BOM is kept');
      assert.deepEqual(match('{x}', '50%'), { x: '50%' }, 'a stray "%" is kept');
      assert.deepEqual(match('{x}', 'caf%c3%a9'), { x: 'café' }, 'lower-case hex');
      assert.deepEqual(match('{x}', 'é:@ !'), { x: 'é:@ !' }, 'characters expansion would encode are accepted');
      assert.equal(match('{x}', '%FF'), undefined);
      assert.equal(match('{x}', '%C3'), undefined);
      assert.equal(match('{x}', '%ED%A0%80'), undefined, 'an encoded surrogate');
      assert.equal(match('{x}', 'a\nb'), undefined, 'control characters never match');
      assert.equal(match('{x}', 'a\u007Fb'), undefined);
      assert.equal(match('caf%C3%A9/{x}', 'caf%C3%A9/y')?.x, 'y');
      assert.equal(match('café/{x}', 'caf%C3%A9/y')?.x, 'y', 'literals match as they expand');
    });

    test('uri template - returns variables on a plain object, even one called __proto__', () => {
      const result = match('{?__proto__,constructor}', '?__proto__=x&constructor=y');
      assert.ok(result !== undefined);
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.deepEqual(Object.keys(result), ['__proto__', 'constructor']);
      assert.equal(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, 'x');
    });

    test('uri template - unsupported forms still expand, but never match', () => {
      for (const source of ['{/list*,path:4}', '{list*,x}', '{?a,a}', '{?a}{&a}', '{;a,b,a}']) {
        const template = parseUriTemplate(source);
        assert.equal(template.matchable, false, source);
        assert.equal(template.match(template.expand(RFC_VARIABLES)), undefined, source);
      }
      assert.equal(parseUriTemplate('{/list*,path:4}').expand(RFC_VARIABLES), '/red/green/blue/%2Ffoo');
      assert.equal(parseUriTemplate('{?a}{?a}').matchable, true, 'separate queries are separate expressions');
      assert.equal(parseUriTemplate('db://{table}/rows{?limit,offset}').matchable, true);
    });

    test('uri template - rejects over-long input and stays linear on hostile input', () => {
      const n = MAX_MATCH_URI_LENGTH;
      assert.equal(n, 8192);
      assert.equal(match('{+x}', 'a'.repeat(n + 1)), undefined);
      assert.deepEqual(match('{+x}', 'a'.repeat(n)), { x: 'a'.repeat(n) });
      const hostile: readonly (readonly [string, string])[] = [
        // Adjacent and overlapping expressions: a backtracking regular expression is O(n^k) on these.
        ['{a}{b}{c}{d}{e}!', 'a'.repeat(n)],
        ['{a}.{b}.{c}.{d}.{e}!', 'a.'.repeat(n / 2)],
        ['{+a}/{+b}/{+c}/{+d}/x', '/'.repeat(n)],
        ['{+a}{+b}{+c}{+d}{#e}{#f}', 'ab'.repeat(n / 2 - 1) + '\n'],
        ['{.a}{.b}{.c}{/d}{;e}{?f}!', '.'.repeat(n)],
        ['x{/s*}{/t*}/end', 'x' + '/a'.repeat(n / 2 - 1)],
        ['{?a,b,c}{&d}', '?' + 'a=&'.repeat(2730)],
        ['{;a,b}x', ';a=;'.repeat(n / 4)],
        ['{a}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', 'a'.repeat(n)],
      ];
      const started = performance.now();
      for (const [source, uri] of hostile) {
        assert.ok(uri.length <= n, source);
        assert.equal(parseUriTemplate(source).match(uri), undefined, source);
      }
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 1000, `hostile inputs took ${elapsed.toFixed(0)} ms`);
    });
  });

  describe('properties', () => {
    const special = fc.constantFrom(...'/?&=#%,.;+:@!*\'()[]$~-_ ', '%41', '%zz', 'é', '😀', '\u0000', '\uFEFF');
    const unit = fc.oneof(special, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const text = fc.string({ unit, maxLength: 10 });
    const nonEmpty = fc.string({ unit, minLength: 1, maxLength: 10 });
    const noTriplet = (value: string): boolean => !/%[0-9A-Fa-f]{2}/.test(value);
    const optional = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
      fc.option(arbitrary, { nil: undefined });
    const without =
      (...chars: string[]) =>
      (value: string): boolean =>
        chars.every((char) => !value.includes(char));
    const list = fc.array(text, { minLength: 1, maxLength: 4 });

    /** Templates of the supported forms, with values for which the round trip is information-preserving. */
    const shapes: readonly (readonly [string, fc.Arbitrary<Record<string, UriTemplateValue>>])[] = [
      ['file:///{+path}', fc.record({ path: nonEmpty.filter(noTriplet) })],
      ['github://repos/{owner}/{repo}', fc.record({ owner: nonEmpty, repo: nonEmpty })],
      [
        'db://{table}/rows{?limit,offset}',
        fc.record({ table: nonEmpty, limit: optional(text), offset: optional(text) }),
      ],
      [
        'x://{host}{/segments*}{?q,page}{&more}{#frag}',
        fc.record({
          host: nonEmpty,
          segments: optional(list),
          q: optional(text),
          page: optional(text),
          more: optional(text),
          frag: optional(text.filter(noTriplet)),
        }),
      ],
      ['notes://{+folder}/n{.ext}', fc.record({ folder: nonEmpty.filter(noTriplet), ext: optional(text) })],
      ['files/{name}{.ext}', fc.record({ name: nonEmpty.filter(without('.')), ext: optional(text) })],
      ['geo://map{;lat,long}{?zoom*}', fc.record({ lat: optional(text), long: optional(text), zoom: optional(list) })],
      ['pos://{x,y}/end', fc.record({ x: text, y: text })],
      [
        'tags://{/a}{.labels*}',
        fc.record({ a: text.filter(without('.')), labels: optional(list.filter((items) => items.every(without('.')))) }),
      ],
      [
        'doc://d{#section,para}',
        fc.record({
          section: text.filter((value) => noTriplet(value) && without(',')(value)),
          para: optional(text.filter(noTriplet)),
        }),
      ],
      [
        'mix://{+base}{?q}',
        fc.record({ base: nonEmpty.filter((value) => noTriplet(value) && without('?')(value)), q: optional(text) }),
      ],
    ];

    for (const [source, variables] of shapes) {
      test(`uri template - match(expand(vars)) gives vars back for ${source}`, () => {
        const template = parseUriTemplate(source);
        fc.assert(
          fc.property(variables, (vars) => {
            const expected = Object.fromEntries(Object.entries(vars).filter(([, value]) => value !== undefined));
            const uri = template.expand(vars);
            assert.deepEqual(template.match(uri), expected, uri);
          }),
          { numRuns: 300 },
        );
      });
    }

    test('uri template - expansions hold only URI characters, and match never throws', () => {
      const extra = ['{keys*}', '{+list,keys}', '{;x:3,list*}', '{&a*}', 'X{.a,b,c*}', '{/list*,path:4}'];
      const sources = [...shapes.map(([source]) => source), ...extra];
      const value = fc.oneof(text, list, fc.dictionary(text, text, { maxKeys: 3 }), fc.constant(undefined));
      const names = ['path', 'owner', 'repo', 'table', 'limit', 'host', 'segments', 'q', 'frag', 'x', 'a', 'keys', 'list'];
      const variables = fc.dictionary(fc.constantFrom(...names), value);
      fc.assert(
        fc.property(fc.constantFrom(...sources), variables, fc.string(), (source, vars, junk) => {
          const template = parseUriTemplate(source);
          const uri = template.expand(vars);
          assert.match(uri, /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/);
          assert.doesNotThrow(() => template.match(uri));
          assert.doesNotThrow(() => template.match(junk));
          assert.doesNotThrow(() => template.match(uri + junk));
        }),
        { numRuns: 500 },
      );
    });
  });
});
