// The extension's service worker. Issue 3 wires lib/ to the browser here;
// for now it only registers, so that `wxt prepare` and the build have an entrypoint.
export default defineBackground(() => {});
