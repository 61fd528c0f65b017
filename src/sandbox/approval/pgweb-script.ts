import type { SandboxRequest, SandboxResponse } from '../types.js';

/** Where the vendor's checkout page loads the window script from, on the gateway's web host. */
export const PGWEB_SCRIPT_PATH = '/v3/common/js/nicepay-pgweb.js';

/**
 * The browser script a page written for the real gateway loads (`<script src=".../v3/common/js/
 * nicepay-pgweb.js">`), with the one function it calls, `goPay(form)`, and the two callbacks the
 * page defines: `nicepaySubmit()` (the PC layer's result is in the form: submit it) and
 * `nicepayClose()` (the buyer closed the PC layer). As the vendor's sample describes it:
 *
 * - on a phone, the form itself goes to the window (`POST /window`), which later posts the auth
 *   return to the form's ReturnURL (the mobile flow);
 * - on a PC, the window opens in a layer (an iframe over the page); the buyer's result comes
 *   back as a message from the sandbox's origin only, its fields are written into the form
 *   (existing inputs by name, hidden ones added) and the page's `nicepaySubmit()` posts it
 *   (the form's own action: the PC flow needs no ReturnURL); 취소 removes the layer and calls
 *   `nicepayClose()`.
 *
 * The form is sent in EUC-KR (`accept-charset`), as the window reads it; its action, target
 * and charset are put back as they were right after, so `nicepaySubmit()` posts to the page's
 * own action in the page's own charset.
 */
const SCRIPT = `/* express-nicepay sandbox: nicepay-pgweb.js (goPay, PC layer and mobile redirect) */
(function () {
  'use strict';
  var current = document.currentScript;
  var gateway = new URL(current ? current.src : location.href).origin;
  var layer = null;
  var payForm = null;

  function isMobile() {
    return /Android|iPhone|iPad|iPod|Mobile|Windows Phone/i.test(navigator.userAgent);
  }

  function send(form, action, target) {
    var saved = { action: form.getAttribute('action'), target: form.getAttribute('target'), charset: form.getAttribute('accept-charset'), method: form.getAttribute('method') };
    form.setAttribute('action', action);
    form.setAttribute('target', target);
    form.setAttribute('accept-charset', 'euc-kr');
    form.setAttribute('method', 'post');
    HTMLFormElement.prototype.submit.call(form);
    ['action', 'target', 'accept-charset', 'method'].forEach(function (name) {
      var key = name === 'accept-charset' ? 'charset' : name;
      if (saved[key] === null) form.removeAttribute(name); else form.setAttribute(name, saved[key]);
    });
  }

  function closeLayer() {
    if (layer && layer.parentNode) layer.parentNode.removeChild(layer);
    layer = null;
  }

  function openLayer() {
    closeLayer();
    layer = document.createElement('div');
    layer.id = 'nicepay-layer';
    layer.setAttribute('style', 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center');
    var frame = document.createElement('iframe');
    frame.name = 'nicepay-layer-frame';
    frame.id = 'nicepay-layer-frame';
    frame.title = 'NICEPAY';
    frame.setAttribute('style', 'width:min(720px,100%);height:min(640px,100%);border:0;background:#fff');
    layer.appendChild(frame);
    document.body.appendChild(layer);
    return frame.name;
  }

  function setField(form, name, value) {
    var input = form.elements.namedItem(name);
    if (input && 'value' in input) { input.value = value; return; }
    input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }

  window.goPay = function (form) {
    if (!form || form.tagName !== 'FORM') throw new TypeError('goPay(form): pass the payment form element');
    payForm = form;
    if (isMobile()) {
      send(form, gateway + '/window', '_self');
      return;
    }
    send(form, gateway + '/window?layer=1&origin=' + encodeURIComponent(location.origin), openLayer());
  };

  window.addEventListener('message', function (event) {
    if (event.origin !== gateway || !event.data || typeof event.data !== 'object') return;
    var data = event.data;
    if (data.nicepay === 'auth' && payForm && data.fields && typeof data.fields === 'object') {
      Object.keys(data.fields).forEach(function (name) { setField(payForm, name, String(data.fields[name])); });
      closeLayer();
      if (typeof window.nicepaySubmit === 'function') window.nicepaySubmit(); else HTMLFormElement.prototype.submit.call(payForm);
    } else if (data.nicepay === 'close') {
      closeLayer();
      if (typeof window.nicepayClose === 'function') window.nicepayClose();
    }
  });
})();
`;

/** `GET /v3/common/js/nicepay-pgweb.js`: the window script (see {@link SCRIPT}'s description above). */
export function pgwebScript(_req: SandboxRequest): SandboxResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
    body: SCRIPT,
  };
}
