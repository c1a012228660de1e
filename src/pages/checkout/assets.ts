// The checkout page's stylesheet and script, served by the Worker under a path holding a hash of
// their text, so browsers may keep them for a year (a change gets a new path).

const CSS = `
:root{--fg:#1a1a1a;--muted:#4d4d4d;--bg:#f4f5f7;--card:#fff;--line:#c9ccd1;--accent:#0b57d0;--accent-dark:#0842a0;--error:#b3261e;--ok:#146c2e;--focus:#ffbf47}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
.top{display:flex;justify-content:space-between;align-items:center;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.1rem;margin:0}
main{max-width:68rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.grid{display:grid;gap:1.5rem;grid-template-columns:1fr}
@media (min-width:52rem){.grid{grid-template-columns:minmax(0,5fr) minmax(0,6fr);align-items:start}.summary{position:sticky;top:1rem}.alert{grid-column:1/-1}}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1.25rem 1.5rem}
.message{max-width:36rem;margin:2rem auto}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.25rem;margin:0 0 1rem}h3{font-size:1.05rem;margin:0}
.items{list-style:none;margin:0;padding:0}
.item{padding:0 0 1rem;margin:0 0 1rem;border-bottom:1px solid var(--line)}
.item-head{display:flex;justify-content:space-between;gap:1rem;align-items:baseline}
.item-amount{font-weight:600;white-space:nowrap}.per{font-weight:400;color:var(--muted)}
.price{margin:.25rem 0}
.badge{display:inline-block;margin-left:.5rem;padding:0 .5rem;border-radius:1rem;background:#e3f1e6;color:var(--ok);font-size:.875rem;font-weight:600}
.muted{color:var(--muted);margin:.25rem 0}.small{font-size:.875rem}
fieldset{border:0;padding:0;margin:1.25rem 0 0}
legend{font-weight:700;font-size:1.05rem;margin-bottom:.5rem;padding:0}
.field{display:flex;flex-direction:column;margin:0 0 .75rem;min-width:0}
.field label{font-weight:600;margin-bottom:.25rem}
.req{color:var(--error)}
input[type=text],input[type=email],input[type=tel],input[type=number],select{font:inherit;color:inherit;padding:.5rem .625rem;border:1px solid #767b82;border-radius:.375rem;background:#fff;width:100%}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--error);border-width:2px}
.error{color:var(--error);font-weight:600;margin:.25rem 0 0}
.error::before{content:"⚠ "}
.row2{display:flex;column-gap:.75rem;flex-wrap:wrap}.row2>.field{flex:1 1 12rem}.row2>.narrow{flex:0 1 7rem}.row2>.grow{flex:3 1 12rem}
form.inline{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin:.5rem 0}
form.inline .field{margin:0}form.inline .narrow{width:7rem}form.inline .grow{flex:1 1 10rem}
form.inline .error{flex-basis:100%;margin:0}
.coupon{padding-bottom:1rem;border-bottom:1px solid var(--line)}
.applied{margin:0;color:var(--ok);font-weight:600;flex:1}
button,.button{font:inherit;font-weight:600;border-radius:.375rem;padding:.55rem 1rem;cursor:pointer;border:2px solid var(--accent);text-decoration:none;display:inline-block}
.primary{background:var(--accent);color:#fff;width:100%;margin-top:1.25rem;padding:.8rem 1rem;font-size:1.05rem}
.primary:hover{background:var(--accent-dark);border-color:var(--accent-dark)}
.primary[aria-disabled=true]{opacity:.7;cursor:progress}
.secondary,.button{background:#fff;color:var(--accent)}
.secondary:hover{background:#eef3fc}
button.link{border:0;background:none;color:var(--accent);text-decoration:underline;padding:.25rem}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;box-shadow:0 0 0 5px #1a1a1a}
.totals{margin:1rem 0 0}
.totals .row{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
.totals dt{margin:0}.totals dd{margin:0;white-space:nowrap}
.totals .note{display:block;font-size:.875rem;color:var(--muted)}
.totals .discount dd{color:var(--ok)}
.totals .grand{border-top:2px solid var(--fg);margin-top:.5rem;padding-top:.5rem;font-weight:700;font-size:1.15rem}
.status{min-height:1.5em;margin:.5rem 0 0;color:var(--muted);font-size:.875rem}
.payment .pay-option{border:1px solid var(--line);border-radius:.375rem;padding:.6rem .75rem;margin:0 0 .5rem}
.payment .pay-option>label{font-weight:600;margin-left:.4rem}
.payment input[type=radio]{width:1.1rem;height:1.1rem;vertical-align:-.15rem}
.pay-option .pay-extra{margin-top:.75rem}
.pay-option:not(:has(input[type=radio]:checked)) .pay-extra{display:none}
.pay-option:has(.error) .pay-extra{display:block}
.alert{border:2px solid var(--error);background:#fdeceb;border-radius:.5rem;padding:.75rem 1.25rem}
.alert p{margin:0 0 .25rem;font-weight:700}.alert ul{margin:0;padding-left:1.25rem}
.alert a{color:var(--error)}
.total-line{font-size:1.1rem}
.lang{font-size:.9rem}
[aria-busy=true] .totals{opacity:.55}
.card-option{display:none}.cards .card-option{display:block}
.card-element{padding:.6rem .625rem;border:1px solid #767b82;border-radius:.375rem;background:#fff}
.card-element input{font:inherit;border:0;width:100%;outline:0}
.card-element:focus-within{outline:3px solid var(--focus);box-shadow:0 0 0 2px var(--fg)}
.seller{display:flex;align-items:center;gap:.75rem;font-weight:700}
.logo{max-height:2.5rem;max-width:10rem;object-fit:contain}
.plan{margin:0 0 1rem}.plan-name{font-size:1.1rem}
.check>div{display:flex;gap:.5rem;align-items:flex-start}.check label{font-weight:400}
.check input[type=checkbox]{width:1.1rem;height:1.1rem;margin-top:.2rem}
.renewal{margin:1rem 0 0}
.completion .row{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}.completion dd{margin:0;font-weight:700}
.seller-foot{max-width:68rem;margin:0 auto;padding:0 1rem 2rem;color:var(--muted);font-size:.875rem;display:flex;flex-wrap:wrap;justify-content:space-between;gap:1rem}
.seller-foot address{font-style:normal;display:flex;flex-direction:column}
.legal{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
`;

// Progressive enhancement: quantity, coupon and address changes go to the public JSON API of the
// cart (the same service calls the forms make) and the totals are redrawn from the cart it answers;
// confirming stays a normal form post. Without this script every form still works.
const JS = `
(function(){
  // A charge waiting for the buyer's bank (3-D Secure): the card client runs the bank's challenge
  // with the client secret, then the form asks the server how the charge stands, whatever the
  // client answered.
  var auth=document.querySelector('[data-authenticate]');
  if(auth){var secret=auth.getAttribute('data-client-secret'),form=document.getElementById('authenticate-form');
    if(secret&&typeof window.Stripe==='function'){var done=function(){form.submit()};window.Stripe(auth.getAttribute('data-key')).confirmCardPayment(secret).then(done,done)}
    return}
  var root=document.querySelector('[data-cart]');if(!root)return;
  var id=root.getAttribute('data-cart'),lang=root.getAttribute('data-lang');
  var texts=JSON.parse(root.getAttribute('data-texts')||'{}');
  var api='/public/checkout/cart/'+encodeURIComponent(id);
  var locale=lang==='de'?'de-DE':'en-GB';
  var status=document.getElementById('live-status');
  var summary=document.querySelector('.summary');
  function money(a,c){return new Intl.NumberFormat(locale,{style:'currency',currency:c}).format(a)}
  function rate(r){return r.indexOf('.')>=0?r.replace(/\\.?0+$/,''):r}
  function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e}
  function row(label,value,cls,note){var d=el('div','row'+(cls?' '+cls:''));var dt=el('dt',null,label);if(note)dt.appendChild(el('span','note',note));d.appendChild(dt);d.appendChild(el('dd',null,value));return d}
  function draw(cart){
    var p=cart.price,c=p.currencyCode,dl=document.getElementById('totals');
    var rows=[];
    p.discountDetails.forEach(function(d){rows.push(row(texts.discount+' ('+d.code+')','\\u2212'+money(d.amount,c),'discount'))});
    rows.push(row(texts.net,money(p.netAmount,c)));
    p.taxes.forEach(function(x){rows.push(row(texts.tax.replace('{rate}',lang==='de'?rate(x.rate).replace('.',','):rate(x.rate)),money(x.taxAmount,c),null,x.category==='AE'?texts.reverseCharge:x.note))});
    var g=row(texts.total,money(p.amountDue,c),'grand');g.lastChild.setAttribute('data-total','due');rows.push(g);
    dl.replaceChildren.apply(dl,rows);
    document.querySelectorAll('#confirm [data-total=due]').forEach(function(e){e.textContent=money(p.amountDue,c)});
    var ra=document.querySelector('[data-renewal-amount]');if(ra&&cart.renewal)ra.textContent=money(cart.renewal.amount,cart.renewal.currencyCode);
    cart.items.forEach(function(it){var cur=it.price.currencyCode,r=it.price.recurring;
      var a=document.querySelector('[data-item-amount="'+it.id+'"]');if(a)a.textContent=money(r?r.recurringAmount:it.price.totalNetAmount,cur);
      var b=document.querySelector('[data-item-breakdown="'+it.id+'"]');if(b)b.textContent=it.quantity+' \\u00d7 '+money(b.getAttribute('data-unit-amount'),cur)});
  }
  function clearErrors(form){form.querySelectorAll('.error[data-live]').forEach(function(e){e.remove()});form.querySelectorAll('[aria-invalid][data-live-invalid]').forEach(function(i){i.removeAttribute('aria-invalid');i.removeAttribute('aria-describedby');i.removeAttribute('data-live-invalid')})}
  function showError(input,message){
    if(!input)return;var eid='e-'+input.name;var old=document.getElementById(eid);if(old)old.remove();
    var p=el('p','error',message);p.id=eid;p.setAttribute('data-live','');
    (input.closest('.field')||input.parentNode).appendChild(p);
    input.setAttribute('aria-invalid','true');input.setAttribute('aria-describedby',eid);input.setAttribute('data-live-invalid','');
  }
  var FIELD={email:'email',phone:'phone',quantity:'quantity',cartItemId:'quantity',code:'code'};
  function message(f,v){var m=texts.messages||{};return m[f+':'+v.code]||m['*:'+v.code]||v.message}
  function fieldName(path){var m=/^(?:newInvoiceAddress|invoiceAddress)\\.(\\w+)$/.exec(path);return m?m[1]:FIELD[path]}
  // What the buyer typed survives a reload the page has to make (the cart was locked or is gone):
  // kept for this tab until the page is shown again. Never the IBAN.
  var stashKey='checkout:'+id;
  function stash(){var d=document.querySelector('form[data-js=details]');if(!d)return;var v={};
    d.querySelectorAll('input[name],select[name]').forEach(function(i){if(i.type==='hidden'||i.name==='iban'||i.name==='cardToken')return;if(i.type==='radio'||i.type==='checkbox'){if(i.checked)v[i.name]=i.value}else v[i.name]=i.value});
    try{sessionStorage.setItem(stashKey,JSON.stringify(v))}catch(e){}}
  function unstash(){var v=null;try{v=JSON.parse(sessionStorage.getItem(stashKey)||'null');sessionStorage.removeItem(stashKey)}catch(e){}
    var d=document.querySelector('form[data-js=details]');if(!v||!d)return;
    Object.keys(v).forEach(function(n){d.querySelectorAll('[name="'+n+'"]').forEach(function(i){if(i.type==='radio'||i.type==='checkbox')i.checked=i.value===v[n];else i.value=v[n]})})}
  function reload(){stash();location.reload()}
  // One request on the cart at a time, in the order they were asked for: a change never overtakes
  // another (two at once would meet at the cart's version and one be refused). A body given as a
  // function is read when its turn comes, so a burst of edits sends only the latest; null skips.
  var queue=Promise.resolve();
  function send(method,path,body,form){
    var run=function(){var b=typeof body==='function'?body():body;return b===null?null:request(method,path,b,form,0)};
    var p=queue.then(run,run);queue=p.then(null,function(){});return p;
  }
  function request(method,path,body,form,tries){
    summary.setAttribute('aria-busy','true');status.textContent=texts.updating;
    return fetch(api+path,{method:method,headers:{'Content-Type':'application/json',Accept:'application/json'},body:body===undefined?undefined:JSON.stringify(body)})
      .then(function(r){return r.json().then(function(j){return{ok:r.ok,status:r.status,body:j}})})
      .then(function(r){
        summary.removeAttribute('aria-busy');
        if(r.status===409&&r.body&&/concurrent-update$/.test(r.body.type||'')&&tries<2)return request(method,path,body,form,tries+1);
        if(form)clearErrors(form);
        if(r.ok){draw(r.body);status.textContent=texts.updated;return r.body}
        if(r.status===409||r.status===404){reload();return null}
        var shown=false;(r.body.violations||[]).forEach(function(v){var f=fieldName(v.propertyPath);var input=f&&form&&form.querySelector('[name="'+f+'"]');if(input){showError(input,message(f,v));shown=true}});
        if(!shown&&form){showError(form.querySelector('input:not([type=hidden])'),r.body.detail||'Error')}
        status.textContent='';return null;
      })
      .catch(function(){summary.removeAttribute('aria-busy');status.textContent='';return null});
  }
  // Quantity: typing settles for a moment (or the field is left, or the button pressed) before one
  // request goes; its value is read when it is sent, so the last typed value is the one stored.
  var q=document.querySelectorAll('form[data-js=quantity]');
  q.forEach(function(form){
    var input=form.querySelector('[name=quantity]'),item=form.querySelector('[name=cartItemId]').value;
    var stored=input.value,waiting=false,timer=null;
    function go(e){if(e&&e.preventDefault)e.preventDefault();clearTimeout(timer);
      if(!input.checkValidity()){showError(input,input.validationMessage);return}
      if(waiting)return;waiting=true;
      send('PUT','/change-quantity',function(){waiting=false;var v=input.value;
        if(v===stored||!input.checkValidity())return null;stored=v;return{cartItemId:item,quantity:Number(v)}},form)
        .then(function(cart){if(!cart)return;var it=cart.items.filter(function(i){return i.id===item})[0];if(it)stored=String(it.quantity)},function(){stored=null});
    }
    form.addEventListener('submit',go);input.addEventListener('change',go);
    input.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(go,400)});
  });
  // Coupon: applied or removed through the API, then the form swapped for the other one.
  var box=document.getElementById('coupon-box');
  function swapCoupon(cart){
    var tpl=document.getElementById(cart.couponCode?'tpl-coupon-applied':'tpl-coupon-entry');
    var node=tpl.content.firstElementChild.cloneNode(true);
    var applied=node.querySelector('[data-coupon-applied]');if(applied)applied.textContent=applied.textContent.replace('{code}',cart.couponCode);
    box.replaceChild(node,box.querySelector('form'));bindCoupon(node);
    var focus=node.querySelector('input:not([type=hidden]),button');if(focus)focus.focus();
  }
  function bindCoupon(form){
    if(form.getAttribute('data-js')==='coupon')form.addEventListener('submit',function(e){e.preventDefault();var code=form.querySelector('[name=code]').value.trim();if(!code)return;
      send('PUT','/coupon',{code:code},form).then(function(cart){if(cart)swapCoupon(cart)})});
    else form.addEventListener('submit',function(e){e.preventDefault();send('DELETE','/coupon',undefined,form).then(function(cart){if(cart)swapCoupon(cart)})});
  }
  if(box)bindCoupon(box.querySelector('form'));
  // Address fields that change the tax: country, VAT id, company. Saved as the buyer's details.
  var details=document.querySelector('form[data-js=details]');
  if(details){
    var timer;
    function val(n){var i=details.querySelector('[name='+n+']');var v=i?i.value.trim():'';return v===''?null:v}
    function save(){var a={};['companyName','vatId','firstName','lastName','street','houseNumber','zip','city','countryCode'].forEach(function(n){a[n]=val(n)});
      if(a.vatId)a.vatId=a.vatId.replace(/\\s+/g,'').toUpperCase();
      // Only the address: it decides the tax. E-mail and phone are checked when the order is sent.
      send('PUT','/buyer',{invoiceAddress:a},details)}
    ['countryCode','vatId','companyName'].forEach(function(n){var i=details.querySelector('[name='+n+']');if(i)i.addEventListener('change',function(){clearTimeout(timer);timer=setTimeout(save,50)})});
    // Cards: the gateway's client (loaded before this script) collects the card in its own field and
    // makes a payment method; its id goes with the order as cardToken. No client, no card option.
    var cardBox=document.getElementById('card-element'),stripe=null,cardField=null;
    if(cardBox&&typeof window.Stripe==='function'){stripe=window.Stripe(cardBox.getAttribute('data-key'));cardField=stripe.elements().create('card');cardField.mount(cardBox);document.documentElement.classList.add('cards')}
    function cardError(text){var old=document.getElementById('e-card');if(old)old.remove();if(!text)return;var p=el('p','error',text);p.id='e-card';p.setAttribute('role','alert');cardBox.parentNode.appendChild(p)}
    // One order per click: a second click while the first post is on its way does nothing.
    var sent=false;
    details.addEventListener('submit',function(e){if(!e.submitter||e.submitter.id!=='confirm')return;if(sent){e.preventDefault();return}
      var chosen=details.querySelector('[name=paymentType]:checked'),token=details.querySelector('[name=cardToken]');
      if(chosen&&chosen.value==='card'&&token&&!token.value&&stripe){
        e.preventDefault();var button=e.submitter;sent=true;button.setAttribute('aria-disabled','true');cardError(null);
        stripe.createPaymentMethod({type:'card',card:cardField}).then(function(r){
          if(r.error||!r.paymentMethod){sent=false;button.removeAttribute('aria-disabled');cardError((r.error&&r.error.message)||'Card error');return}
          // Posted in a task of its own: the first submission (cancelled above) must be over first.
          token.value=r.paymentMethod.id;sent=false;setTimeout(function(){details.requestSubmit(button)},0)});
        return}
      sent=true;e.submitter.setAttribute('aria-disabled','true')});
  }
  unstash();
  var alertBox=document.getElementById('errors');if(alertBox)alertBox.focus();
})();
`;

/** FNV-1a of the text, as 8 hex digits: enough to tell versions of a file apart (the offer page's stylesheet uses it too). */
export function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

export const ASSETS = {
  css: { text: CSS, type: 'text/css; charset=utf-8', hash: fnv(CSS) },
  js: { text: JS, type: 'text/javascript; charset=utf-8', hash: fnv(JS) },
} as const;

export function assetPath(kind: keyof typeof ASSETS): string {
  return `/checkout/assets/checkout.${ASSETS[kind].hash}.${kind}`;
}
