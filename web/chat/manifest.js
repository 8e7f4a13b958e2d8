// build-manifest.json's `chat` entry (wllama's files, the GGUF with its size and sha256),
// fetched once per page and shared by the chat modules.

let pending = null;

export const chatManifest = {
  current: null, // the entry once loaded (null before, or when the build has none)
  load() {
    if (!pending) {
      pending = fetch('build-manifest.json')
        .then((r) => r.json())
        .then((m) => {
          chatManifest.current = m.chat ?? null;
          return chatManifest.current;
        })
        .catch(() => {
          pending = null; // try again next time
          return null;
        });
    }
    return pending;
  },
};
