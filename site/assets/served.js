// Classic script (it also runs on a page opened from disk, where module scripts are
// refused): marks a page served over http(s), which hides the "open it from a server"
// notice before the first paint. Without JavaScript the notice stays, which is right:
// the live widgets need both.
if (location.protocol === 'http:' || location.protocol === 'https:') document.documentElement.classList.add('hl-served');
