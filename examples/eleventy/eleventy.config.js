// Eleventy 3 with headlab. No import of '@11ty/eleventy' here, so the config also loads when
// Eleventy runs from another folder's node_modules (the test does).
import headlab from 'headlab/eleventy';

export default function (eleventyConfig) {
  // Every figure of each page written is prerendered into it (headlab/eleventy: a picture and a
  // summary a reader sees without JavaScript; the live widget replaces it in place). The figures'
  // column is the post's body: at most 44rem (704 px) with 1rem (16 px) either side (blog.css).
  eleventyConfig.addPlugin(headlab, { maxWidth: 704, margin: 16 });
  // The package's browser files, served at /headlab/: each module finds its .wasm, its worker and
  // the default weights beside itself.
  eleventyConfig.addPassthroughCopy({ 'node_modules/headlab/dist': 'headlab' });
  eleventyConfig.addPassthroughCopy('favicon.svg');
  eleventyConfig.addPassthroughCopy('blog.css');
  eleventyConfig.ignores.add('README.md');
}
